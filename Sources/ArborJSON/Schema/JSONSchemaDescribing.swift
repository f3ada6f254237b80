import Foundation

/// A type that describes its own JSON encoding as a JSON Schema, where inference from
/// `init(from:)` cannot: enums with associated values, custom encodings, constraints.
///
/// ```swift
/// enum Shape: Codable { case circle(radius: Double), square(side: Double) }
///
/// extension Shape: JSONSchemaDescribing {
///   static func jsonSchema(in definitions: inout JSONSchemaDefinitions) -> JSONSchema {
///     .oneOf([
///       .object(properties: [("circle", .object(properties: [("radius", .number)], required: ["radius"]))], required: ["circle"]),
///       .object(properties: [("square", .object(properties: [("side", .number)], required: ["side"]))], required: ["square"]),
///     ])
///   }
/// }
/// ```
public protocol JSONSchemaDescribing {
  /// The schema of this type's JSON. Schemas of other types come from
  /// `definitions.schema(for:)`; named, reusable parts from `definitions.define(_:_:)`.
  static func jsonSchema(in definitions: inout JSONSchemaDefinitions) -> JSONSchema
}

/// Integers: `integer`, bounded by the type's range when it fits in 64 bits.
///
/// ```swift
/// var definitions = JSONSchemaDefinitions()
/// UInt8.jsonSchema(in: &definitions)    // {"type": "integer", "minimum": 0, "maximum": 255}
/// ```
extension JSONSchemaDescribing where Self: FixedWidthInteger {
  public static func jsonSchema(in definitions: inout JSONSchemaDefinitions) -> JSONSchema {
    guard case .object(var object) = JSONSchema.integer.value else { return .integer }
    if bitWidth < 64 {
      object["minimum"] = .int(Int64(Self.min))
      object["maximum"] = .int(Int64(Self.max))
    } else if !isSigned {
      object["minimum"] = 0
    }
    return JSONSchema(.object(object))
  }
}

extension Int: JSONSchemaDescribing {}
extension Int8: JSONSchemaDescribing {}
extension Int16: JSONSchemaDescribing {}
extension Int32: JSONSchemaDescribing {}
extension Int64: JSONSchemaDescribing {}
extension Int128: JSONSchemaDescribing {}
extension UInt: JSONSchemaDescribing {}
extension UInt8: JSONSchemaDescribing {}
extension UInt16: JSONSchemaDescribing {}
extension UInt32: JSONSchemaDescribing {}
extension UInt64: JSONSchemaDescribing {}
extension UInt128: JSONSchemaDescribing {}

/// `Double`: `number`.
///
/// ```swift
/// var definitions = JSONSchemaDefinitions()
/// Double.jsonSchema(in: &definitions)    // {"type": "number"}
/// ```
extension Double: JSONSchemaDescribing {
  public static func jsonSchema(in definitions: inout JSONSchemaDefinitions) -> JSONSchema { .number }
}

/// `Float`: `number`.
///
/// ```swift
/// var definitions = JSONSchemaDefinitions()
/// Float.jsonSchema(in: &definitions)    // {"type": "number"}
/// ```
extension Float: JSONSchemaDescribing {
  public static func jsonSchema(in definitions: inout JSONSchemaDefinitions) -> JSONSchema { .number }
}

/// `Decimal`: `number`, as `JSONEncoder` writes it.
///
/// ```swift
/// var definitions = JSONSchemaDefinitions()
/// Decimal.jsonSchema(in: &definitions)    // {"type": "number"}
/// ```
extension Decimal: JSONSchemaDescribing {
  public static func jsonSchema(in definitions: inout JSONSchemaDefinitions) -> JSONSchema { .number }
}

/// `Bool`: `boolean`.
///
/// ```swift
/// var definitions = JSONSchemaDefinitions()
/// Bool.jsonSchema(in: &definitions)    // {"type": "boolean"}
/// ```
extension Bool: JSONSchemaDescribing {
  public static func jsonSchema(in definitions: inout JSONSchemaDefinitions) -> JSONSchema { .boolean }
}

/// `String`: `string`.
///
/// ```swift
/// var definitions = JSONSchemaDefinitions()
/// String.jsonSchema(in: &definitions)    // {"type": "string"}
/// ```
extension String: JSONSchemaDescribing {
  public static func jsonSchema(in definitions: inout JSONSchemaDefinitions) -> JSONSchema { .string }
}

/// `Date`: a `number`, the seconds since 2001-01-01 that `JSONEncoder`'s default date
/// strategy writes.
///
/// ```swift
/// var definitions = JSONSchemaDefinitions()
/// Date.jsonSchema(in: &definitions)    // {"type": "number", "description": "..."}
/// ```
extension Date: JSONSchemaDescribing {
  public static func jsonSchema(in definitions: inout JSONSchemaDefinitions) -> JSONSchema {
    JSONSchema.number.description("Seconds since 2001-01-01T00:00:00Z.")
  }
}

/// `Data`: a base64 `string`.
///
/// ```swift
/// var definitions = JSONSchemaDefinitions()
/// Data.jsonSchema(in: &definitions)    // {"type": "string", "contentEncoding": "base64"}
/// ```
extension Data: JSONSchemaDescribing {
  public static func jsonSchema(in definitions: inout JSONSchemaDefinitions) -> JSONSchema {
    JSONSchema(["type": "string", "contentEncoding": "base64"])
  }
}

/// `URL`: a `string` in `uri` format.
///
/// ```swift
/// var definitions = JSONSchemaDefinitions()
/// URL.jsonSchema(in: &definitions)    // {"type": "string", "format": "uri"}
/// ```
extension URL: JSONSchemaDescribing {
  public static func jsonSchema(in definitions: inout JSONSchemaDefinitions) -> JSONSchema {
    .string(format: "uri")
  }
}

/// `UUID`: a `string` in `uuid` format.
///
/// ```swift
/// var definitions = JSONSchemaDefinitions()
/// UUID.jsonSchema(in: &definitions)    // {"type": "string", "format": "uuid"}
/// ```
extension UUID: JSONSchemaDescribing {
  public static func jsonSchema(in definitions: inout JSONSchemaDefinitions) -> JSONSchema {
    .string(format: "uuid")
  }
}

/// `JSONValue`: any JSON, `{}`.
///
/// ```swift
/// var definitions = JSONSchemaDefinitions()
/// JSONValue.jsonSchema(in: &definitions)    // {}
/// ```
extension JSONValue: JSONSchemaDescribing {
  public static func jsonSchema(in definitions: inout JSONSchemaDefinitions) -> JSONSchema { .any }
}

/// `JSONSchema`: a schema, which is an object or a boolean.
///
/// ```swift
/// var definitions = JSONSchemaDefinitions()
/// JSONSchema.jsonSchema(in: &definitions)    // {"type": ["object", "boolean"]}
/// ```
extension JSONSchema: JSONSchemaDescribing {
  public static func jsonSchema(in definitions: inout JSONSchemaDefinitions) -> JSONSchema {
    JSONSchema(["type": ["object", "boolean"]])
  }
}

/// `Optional`: the wrapped type's schema or `null`. (As a property, `JSONEncoder` leaves a
/// `nil` out; inferred schemas mark such properties as not required.)
///
/// ```swift
/// var definitions = JSONSchemaDefinitions()
/// Int?.jsonSchema(in: &definitions)    // {"anyOf": [{"type": "integer"}, {"type": "null"}]}
/// ```
extension Optional: JSONSchemaDescribing {
  public static func jsonSchema(in definitions: inout JSONSchemaDefinitions) -> JSONSchema {
    .nullable(definitions.schema(for: Wrapped.self))
  }
}

/// `Array`: an `array` of the element's schema.
///
/// ```swift
/// var definitions = JSONSchemaDefinitions()
/// [String].jsonSchema(in: &definitions)    // {"type": "array", "items": {"type": "string"}}
/// ```
extension Array: JSONSchemaDescribing {
  public static func jsonSchema(in definitions: inout JSONSchemaDefinitions) -> JSONSchema {
    .array(definitions.schema(for: Element.self))
  }
}

/// `ContiguousArray`: an `array` of the element's schema.
///
/// ```swift
/// var definitions = JSONSchemaDefinitions()
/// ContiguousArray<Int>.jsonSchema(in: &definitions)    // {"type": "array", "items": {"type": "integer"}}
/// ```
extension ContiguousArray: JSONSchemaDescribing {
  public static func jsonSchema(in definitions: inout JSONSchemaDefinitions) -> JSONSchema {
    .array(definitions.schema(for: Element.self))
  }
}

/// `Set`: an `array` of the element's schema with `uniqueItems`.
///
/// ```swift
/// var definitions = JSONSchemaDefinitions()
/// Set<String>.jsonSchema(in: &definitions)    // {"type": "array", "items": {"type": "string"}, "uniqueItems": true}
/// ```
extension Set: JSONSchemaDescribing {
  public static func jsonSchema(in definitions: inout JSONSchemaDefinitions) -> JSONSchema {
    guard case .object(var object) = JSONSchema.array(definitions.schema(for: Element.self)).value else { return .any }
    object["uniqueItems"] = true
    return JSONSchema(.object(object))
  }
}

/// `Dictionary`: an `object` when keys are `String`, `Int` (written as decimal strings)
/// or `CodingKeyRepresentable`; otherwise the `array` of alternating keys and values
/// that `Dictionary` encodes.
///
/// ```swift
/// var definitions = JSONSchemaDefinitions()
/// [String: Int].jsonSchema(in: &definitions)    // {"type": "object", "additionalProperties": {"type": "integer"}}
/// [Int: Bool].jsonSchema(in: &definitions)      // the same, with "propertyNames": {"pattern": "^-?[0-9]+$"}
/// ```
extension Dictionary: JSONSchemaDescribing {
  public static func jsonSchema(in definitions: inout JSONSchemaDefinitions) -> JSONSchema {
    let values = definitions.schema(for: Value.self)
    if Key.self == String.self || Key.self is any CodingKeyRepresentable.Type && Key.self != Int.self {
      return .dictionary(values)
    }
    if Key.self == Int.self {
      guard case .object(var object) = JSONSchema.dictionary(values).value else { return .any }
      object["propertyNames"] = ["pattern": "^-?[0-9]+$"]
      return JSONSchema(.object(object))
    }
    return JSONSchema(["type": "array", "items": ["anyOf": [definitions.schema(for: Key.self).value, values.value]]])
  }
}
