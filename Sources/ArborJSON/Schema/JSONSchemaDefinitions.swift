/// The named schemas of one JSON Schema document (its `$defs`), gathered while the
/// schemas of Swift types are made.
///
/// ```swift
/// var definitions = JSONSchemaDefinitions()
/// let root = definitions.schema(for: Order.self)    // {"$ref": "#/$defs/Order"}
/// let document = definitions.document(root: root, title: "Order")
/// ```
public struct JSONSchemaDefinitions: Sendable {
  /// The definitions made so far, by name.
  public private(set) var definitions: [String: JSONSchema] = [:]

  /// Names whose schema is being built; requests for them return a reference.
  private var building: Set<String> = []
  /// Names requested while their schema was being built.
  private var recursive: Set<String> = []
  /// The definition name given to each inferred type.
  private var typeNames: [ObjectIdentifier: String] = [:]

  /// Starts with no definitions.
  ///
  /// ```swift
  /// var definitions = JSONSchemaDefinitions()
  /// ```
  public init() {}

  /// The schema of the JSON that `JSONEncoder()` makes from values of `type`.
  ///
  /// In order: a `JSONSchemaDescribing` type describes itself; a `CaseIterable` enum with
  /// `String` or integer raw values becomes a `string` or `integer` with an `enum` of its
  /// raw values; another `Decodable` type is inferred from what its `init(from:)` asks
  /// for, and a struct or class read from a keyed container is added to the definitions
  /// and referenced. A `RawRepresentable` type with `String` or integer raw values that
  /// cannot be inferred (an enum that is not `CaseIterable`) becomes its raw value's type,
  /// with a description saying how to list its values. Other types get `{}` with a
  /// description saying why.
  ///
  /// ```swift
  /// struct Point: Codable { var x: Double; var y: Double? }
  /// enum Mode: String, Codable, CaseIterable { case off, heat, cool }
  /// var definitions = JSONSchemaDefinitions()
  /// definitions.schema(for: [Int].self)      // {"type": "array", "items": {"type": "integer"}}
  /// definitions.schema(for: Mode.self)       // {"type": "string", "enum": ["off", "heat", "cool"]}
  /// definitions.schema(for: Point.self)      // {"$ref": "#/$defs/Point"}
  /// definitions.definitions["Point"]         // x required; y optional and nullable
  /// ```
  public mutating func schema<T>(for type: T.Type) -> JSONSchema {
    if let describing = type as? any JSONSchemaDescribing.Type {
      return describing.jsonSchema(in: &self)
    }
    if let cases = type as? any (CaseIterable & RawRepresentable & Decodable).Type,
      let schema = Self.rawValueEnumeration(cases)
    {
      return schema
    }
    if let decodable = type as? any Decodable.Type {
      return inferredSchema(for: decodable)
    }
    return JSONSchema.any.description(
      "`\(type)` is not Codable; conform it to JSONSchemaDescribing to describe its JSON.")
  }

  /// Adds the schema `build` makes under `name`, once, and returns a reference to it.
  /// While `build` runs, requests for `name` return the reference, so recursive types
  /// terminate.
  ///
  /// ```swift
  /// extension Tree: JSONSchemaDescribing {
  ///   static func jsonSchema(in definitions: inout JSONSchemaDefinitions) -> JSONSchema {
  ///     definitions.define("Tree") { definitions in
  ///       .object(properties: [("children", .array(definitions.schema(for: Tree.self)))], required: ["children"])
  ///     }
  ///   }
  /// }
  /// ```
  public mutating func define(_ name: String, _ build: (inout JSONSchemaDefinitions) -> JSONSchema) -> JSONSchema {
    if definitions[name] == nil {
      if building.contains(name) {
        recursive.insert(name)
      } else {
        building.insert(name)
        let schema = build(&self)
        building.remove(name)
        recursive.remove(name)
        definitions[name] = schema
      }
    }
    return .reference(name)
  }

  /// A complete schema document: `root` with `$schema` (draft 2020-12), an optional
  /// `title`, and the definitions as `$defs`.
  ///
  /// ```swift
  /// var definitions = JSONSchemaDefinitions()
  /// let root = definitions.schema(for: Order.self)
  /// let document = definitions.document(root: root, title: "Order")
  /// let json = try JSONEncoder().encode(document)
  /// ```
  public func document(root: JSONSchema, title: String? = nil) -> JSONSchema {
    var object: [String: JSONValue]
    if case .object(let rootObject) = root.value {
      object = rootObject
    } else {
      object = ["allOf": [root.value]]
    }
    object["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    if let title { object["title"] = .string(title) }
    if !definitions.isEmpty {
      var all: [String: JSONValue] = [:]
      if case .object(let existing)? = object["$defs"] { all = existing }
      for (name, schema) in definitions { all[name] = schema.value }
      object["$defs"] = .object(all)
    }
    return JSONSchema(.object(object))
  }
}

// MARK: - Enumerations and inferred types

extension JSONSchemaDefinitions {
  /// `{"type": "string", "enum": [...]}` (or `integer`) for an enum's raw values; nil when
  /// they are neither strings nor integers that fit in 64 bits.
  static func rawValueEnumeration<E: CaseIterable & RawRepresentable>(_ type: E.Type) -> JSONSchema? {
    guard let type = rawValueType(E.RawValue.self) else { return nil }
    var values: [JSONValue] = []
    for item in E.allCases {
      switch item.rawValue {
      case let raw as String: values.append(.string(raw))
      case let raw as any BinaryInteger:
        guard let exact = Int64(exactly: raw) else { return nil }
        values.append(.int(exact))
      default: return nil
      }
    }
    return JSONSchema(["type": .string(type), "enum": .array(values)])
  }

  /// For a `RawRepresentable` type whose values cannot all be listed: its raw value's type,
  /// `string` or `integer`, with a description that says how to list them.
  static func rawValueFallback(for type: Any.Type) -> JSONSchema? {
    guard let representable = type as? any RawRepresentable.Type else { return nil }
    return rawValueFallback(representable)
  }

  private static func rawValueFallback<R: RawRepresentable>(_ type: R.Type) -> JSONSchema? {
    guard let rawType = rawValueType(R.RawValue.self) else { return nil }
    return JSONSchema(["type": .string(rawType)]).description(
      "A raw value of `\(R.self)`. Conform `\(R.self)` to CaseIterable to list its values here, "
        + "or to JSONSchemaDescribing to describe them.")
  }

  /// `string` or `integer`, for the raw values an enum may have.
  private static func rawValueType(_ type: Any.Type) -> String? {
    if type == String.self { return "string" }
    if type is any BinaryInteger.Type { return "integer" }
    return nil
  }

  /// Infers `T`'s schema by decoding a value with a recording decoder. Structs and
  /// classes (keyed), and recursive types, become definitions named after the type.
  mutating func inferredSchema<T: Decodable>(for type: T.Type) -> JSONSchema {
    let saved = self
    let name = definitionName(for: type)
    if definitions[name] != nil { return .reference(name) }
    if building.contains(name) {
      recursive.insert(name)
      return .reference(name)
    }
    building.insert(name)
    let context = InferenceContext(definitions: self)
    let root = ShapeNode()
    do {
      _ = try T(from: RecordingDecoder(context: context, node: root, codingPath: []))
    } catch {
      self = saved
      if let schema = Self.rawValueFallback(for: type) { return schema }
      return .any.description(SchemaInferenceError.fallbackDescription(for: type, error))
    }
    self = context.definitions
    building.remove(name)
    let schema = root.schema()
    let wasRecursive = recursive.remove(name) != nil
    guard root.isKeyed || wasRecursive else { return schema }
    definitions[name] = schema
    return .reference(name)
  }

  /// The type's name limited to `[A-Za-z0-9_.-]`, made unique among inferred types.
  private mutating func definitionName(for type: Any.Type) -> String {
    let id = ObjectIdentifier(type)
    if let name = typeNames[id] { return name }
    let taken = Set(definitions.keys).union(building).union(typeNames.values)
    let short = Self.sanitize(String(describing: type))
    var name = short
    if taken.contains(name) {
      name = Self.sanitize(String(reflecting: type))
      var suffix = 2
      while taken.contains(name) {
        name = "\(short)_\(suffix)"
        suffix += 1
      }
    }
    typeNames[id] = name
    return name
  }

  static func sanitize(_ text: String) -> String {
    let parts = text.split { character in
      !(character.isASCII && (character.isLetter || character.isNumber || "_.-".contains(character)))
    }
    return parts.isEmpty ? "Type" : parts.joined(separator: "_")
  }
}
