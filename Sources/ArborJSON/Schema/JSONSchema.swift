import Foundation

/// A JSON Schema (draft 2020-12), kept as the JSON value it encodes to.
///
/// The static builders cover what schemas of Codable types need; anything else can be
/// written as a `JSONValue`.
///
/// ```swift
/// let point = JSONSchema.object(properties: [("x", .number), ("y", .number)], required: ["x", "y"])
/// let custom = JSONSchema(["type": "string", "maxLength": 8])
/// ```
public struct JSONSchema: Sendable, Hashable, Codable {
  /// The schema as JSON.
  public var value: JSONValue

  /// Wraps a schema written as JSON.
  ///
  /// ```swift
  /// let short = JSONSchema(["type": "string", "maxLength": 8])
  /// ```
  public init(_ value: JSONValue) { self.value = value }

  public init(from decoder: any Decoder) throws { value = try JSONValue(from: decoder) }

  public func encode(to encoder: any Encoder) throws { try value.encode(to: encoder) }
}

extension JSONSchema {
  /// Accepts every value: `{}`.
  ///
  /// ```swift
  /// let anything: JSONSchema = .any
  /// ```
  public static let any = JSONSchema([:])

  /// Accepts only `null`.
  ///
  /// ```swift
  /// let nothing: JSONSchema = .null    // {"type": "null"}
  /// ```
  public static let null = JSONSchema(["type": "null"])

  /// Accepts `true` and `false`.
  ///
  /// ```swift
  /// let flag: JSONSchema = .boolean    // {"type": "boolean"}
  /// ```
  public static let boolean = JSONSchema(["type": "boolean"])

  /// Accepts numbers without a fractional part.
  ///
  /// ```swift
  /// let count: JSONSchema = .integer    // {"type": "integer"}
  /// ```
  public static let integer = JSONSchema(["type": "integer"])

  /// Accepts any number.
  ///
  /// ```swift
  /// let ratio: JSONSchema = .number    // {"type": "number"}
  /// ```
  public static let number = JSONSchema(["type": "number"])

  /// Accepts any string.
  ///
  /// ```swift
  /// let name: JSONSchema = .string    // {"type": "string"}
  /// ```
  public static let string = JSONSchema(["type": "string"])

  /// A string with a `format` annotation such as `uuid`, `uri` or `date-time`.
  ///
  /// ```swift
  /// let id = JSONSchema.string(format: "uuid")    // {"type": "string", "format": "uuid"}
  /// ```
  public static func string(format: String) -> JSONSchema {
    JSONSchema(["type": "string", "format": .string(format)])
  }

  /// An array whose elements all match `items`.
  ///
  /// ```swift
  /// let tags = JSONSchema.array(.string)    // {"type": "array", "items": {"type": "string"}}
  /// ```
  public static func array(_ items: JSONSchema) -> JSONSchema {
    JSONSchema(["type": "array", "items": items.value])
  }

  /// An object with the given properties, some of them required. Other properties are
  /// allowed unless `additionalProperties` says otherwise.
  ///
  /// ```swift
  /// let point = JSONSchema.object(properties: [("x", .number), ("y", .number)], required: ["x", "y"])
  /// ```
  public static func object(
    properties: [(String, JSONSchema)], required: [String] = [], additionalProperties: JSONSchema? = nil
  ) -> JSONSchema {
    makeObject(properties, required, additionalProperties?.value)
  }

  /// An object with the given properties; `additionalProperties: false` forbids others.
  ///
  /// ```swift
  /// let closed = JSONSchema.object(properties: [("x", .number)], required: ["x"], additionalProperties: false)
  /// ```
  public static func object(
    properties: [(String, JSONSchema)], required: [String] = [], additionalProperties: Bool
  ) -> JSONSchema {
    makeObject(properties, required, .bool(additionalProperties))
  }

  /// An object with the given properties, given as a dictionary.
  ///
  /// ```swift
  /// let point = JSONSchema.object(properties: ["x": .number, "y": .number], required: ["x", "y"])
  /// ```
  public static func object(
    properties: [String: JSONSchema], required: [String] = [], additionalProperties: JSONSchema? = nil
  ) -> JSONSchema {
    makeObject(properties.map { ($0.key, $0.value) }, required, additionalProperties?.value)
  }

  /// An object with the given properties, given as a dictionary; `additionalProperties:
  /// false` forbids others.
  ///
  /// ```swift
  /// let closed = JSONSchema.object(properties: ["x": .number], additionalProperties: false)
  /// ```
  public static func object(
    properties: [String: JSONSchema], required: [String] = [], additionalProperties: Bool
  ) -> JSONSchema {
    makeObject(properties.map { ($0.key, $0.value) }, required, .bool(additionalProperties))
  }

  private static func makeObject(
    _ properties: [(String, JSONSchema)], _ required: [String], _ additionalProperties: JSONValue?
  ) -> JSONSchema {
    var object: [String: JSONValue] = ["type": "object"]
    if !properties.isEmpty {
      object["properties"] = .object(Dictionary(properties.map { ($0.0, $0.1.value) }, uniquingKeysWith: { _, last in last }))
    }
    if !required.isEmpty { object["required"] = .array(required.map(JSONValue.string)) }
    if let additionalProperties { object["additionalProperties"] = additionalProperties }
    return JSONSchema(.object(object))
  }

  /// An object used as a dictionary: any keys, every value matching `values`.
  ///
  /// ```swift
  /// let scores = JSONSchema.dictionary(.integer)    // {"type": "object", "additionalProperties": {"type": "integer"}}
  /// ```
  public static func dictionary(_ values: JSONSchema) -> JSONSchema {
    JSONSchema(["type": "object", "additionalProperties": values.value])
  }

  /// Accepts what `schema` accepts, and `null`. A schema that already accepts `null` is
  /// returned unchanged.
  ///
  /// ```swift
  /// let note = JSONSchema.nullable(.string)    // {"anyOf": [{"type": "string"}, {"type": "null"}]}
  /// ```
  public static func nullable(_ schema: JSONSchema) -> JSONSchema {
    if schema.acceptsNull { return schema }
    return JSONSchema(["anyOf": [schema.value, JSONSchema.null.value]])
  }

  /// Accepts values that match exactly one of `schemas`.
  ///
  /// ```swift
  /// let idOrName = JSONSchema.oneOf([.integer, .string])
  /// ```
  public static func oneOf(_ schemas: [JSONSchema]) -> JSONSchema {
    JSONSchema(["oneOf": .array(schemas.map(\.value))])
  }

  /// Accepts only the listed values.
  ///
  /// ```swift
  /// let size = JSONSchema.enumeration(["small", "large"])    // {"enum": ["small", "large"]}
  /// ```
  public static func enumeration(_ values: [JSONValue]) -> JSONSchema {
    JSONSchema(["enum": .array(values)])
  }

  /// A reference to a definition in the document's `$defs`, such as those made by
  /// `JSONSchemaDefinitions.define(_:_:)`.
  ///
  /// ```swift
  /// let node = JSONSchema.reference("Node")    // {"$ref": "#/$defs/Node"}
  /// ```
  public static func reference(_ name: String) -> JSONSchema {
    JSONSchema(["$ref": .string(definitionsPrefix + escapeReference(name))])
  }

  /// This schema with a `description` annotation.
  ///
  /// ```swift
  /// let age = JSONSchema.integer.description("Age in whole years.")
  /// ```
  public func description(_ text: String) -> JSONSchema {
    guard case .object(var object) = value else {
      return JSONSchema(["allOf": [value], "description": .string(text)])
    }
    object["description"] = .string(text)
    return JSONSchema(.object(object))
  }
}

extension JSONSchema {
  static let definitionsPrefix = "#/$defs/"

  /// The JSON Pointer token for `name`, percent-encoded for a URI fragment.
  static func escapeReference(_ name: String) -> String {
    let token = name.replacingOccurrences(of: "~", with: "~0").replacingOccurrences(of: "/", with: "~1")
    var allowed = CharacterSet.urlFragmentAllowed
    allowed.remove(charactersIn: "%")
    return token.addingPercentEncoding(withAllowedCharacters: allowed) ?? token
  }

  /// The definition's name when this schema is a local `$ref`.
  var referencedName: String? {
    guard case .object(let object) = value, case .string(let reference)? = object["$ref"],
      reference.hasPrefix(Self.definitionsPrefix)
    else { return nil }
    let token = String(reference.dropFirst(Self.definitionsPrefix.count))
    return (token.removingPercentEncoding ?? token)
      .replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")
  }

  /// Whether `null` is certainly accepted: `{}`, a `null` type, or a `null` alternative.
  var acceptsNull: Bool {
    guard case .object(let object) = value else { return value == .bool(true) }
    let annotations: Set<String> = ["description", "title", "$comment", "examples", "default"]
    if object.keys.allSatisfy(annotations.contains) { return true }
    switch object["type"] {
    case .string("null")?: return true
    case .array(let types)?: if types.contains("null") { return true }
    default: break
    }
    for key in ["anyOf", "oneOf"] {
      if case .array(let options)? = object[key], options.contains(where: { JSONSchema($0).acceptsNull }) {
        return true
      }
    }
    return false
  }
}
