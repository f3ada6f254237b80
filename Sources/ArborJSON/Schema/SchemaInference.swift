import Foundation

// Infers the schema of a Decodable type by running its `init(from:)` against a decoder
// that records what is asked for and answers with placeholder values. The same decoder
// without a node to record into makes those placeholder values: empty arrays, absent
// optionals, zeros and empty strings.

/// Why a type's schema could not be inferred: no value of `typeName` could be made.
struct SchemaInferenceError: Error {
  var typeName: String
  var reason: String

  static func reason(_ error: any Error) -> String {
    switch error {
    case let error as SchemaInferenceError: return "no value of `\(error.typeName)` could be made: \(error.reason)"
    case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context),
      DecodingError.keyNotFound(_, let context), DecodingError.dataCorrupted(let context):
      return context.debugDescription
    default: return String(describing: error)
    }
  }

  static func fallbackDescription(for type: Any.Type, _ error: any Error) -> String {
    var culprit = "\(type)"
    if let error = error as? SchemaInferenceError { culprit = error.typeName }
    return "The schema of `\(type)` could not be inferred from its init(from:) (\(reason(error))). "
      + "Conform `\(culprit)` to JSONSchemaDescribing to describe it."
  }
}

/// Shared by the decoders of one inference: the definitions, and the depth of
/// placeholder values being made.
final class InferenceContext {
  var definitions: JSONSchemaDefinitions
  private var depth = 0
  private static let maximumDepth = 32

  init(definitions: JSONSchemaDefinitions) { self.definitions = definitions }

  func schema<T>(for type: T.Type) -> JSONSchema { definitions.schema(for: type) }

  /// A value of `T` for decoding to go on with: zero, empty, `nil`, the first case, or
  /// whatever `T(from:)` makes of a decoder that finds nothing.
  func placeholder<T: Decodable>(_ type: T.Type) throws -> T {
    if let value = Self.knownPlaceholder(type) { return value }
    if let cases = type as? any CaseIterable.Type, let first = Self.firstCase(cases) as? T { return first }
    guard depth < Self.maximumDepth else {
      throw SchemaInferenceError(typeName: "\(type)", reason: "it nests itself without end")
    }
    depth += 1
    defer { depth -= 1 }
    do {
      return try T(from: RecordingDecoder(context: self, node: nil, codingPath: []))
    } catch let error as SchemaInferenceError {
      throw error
    } catch {
      if let value = exampleValue(type) { return value }
      throw SchemaInferenceError(typeName: "\(type)", reason: SchemaInferenceError.reason(error))
    }
  }

  private static func knownPlaceholder<T>(_ type: T.Type) -> T? {
    let value: Any? =
      switch type {
      case let type as any ExpressibleByNilLiteral.Type: type.init(nilLiteral: ())
      case is Bool.Type: false
      case is String.Type: ""
      case let type as any AdditiveArithmetic.Type: type.zero
      case is Date.Type: Date(timeIntervalSinceReferenceDate: 0)
      case is Data.Type: Data()
      case is URL.Type: URL(string: "https://example.com")
      case is UUID.Type: UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
      default: nil
      }
    return value as? T
  }

  private static func firstCase<C: CaseIterable>(_ type: C.Type) -> Any? { C.allCases.first }

  /// For a `JSONSchemaDescribing` type: a value decoded by `JSONDecoder` from an example
  /// of its schema.
  private func exampleValue<T: Decodable>(_ type: T.Type) -> T? {
    guard let describing = type as? any JSONSchemaDescribing.Type else { return nil }
    let schema = describing.jsonSchema(in: &definitions)
    guard let example = schema.example(definitions: definitions.definitions),
      let data = try? JSONEncoder().encode(example)
    else { return nil }
    return try? JSONDecoder().decode(type, from: data)
  }
}

/// What one decoder or container was asked for.
final class ShapeNode {
  /// The schema of the value requested from a single-value container.
  var value: JSONSchema?
  var isKeyed = false
  var properties: [String: ShapeNode] = [:]
  var propertyOrder: [String] = []
  var required: [String] = []
  /// Keys asked about with `contains`: they may be absent.
  var optionalKeys: Set<String> = []
  /// The elements, once an unkeyed container was requested.
  var items: ShapeNode?
  var nullable = false

  func property(_ key: any CodingKey) -> ShapeNode {
    if let node = properties[key.stringValue] { return node }
    let node = ShapeNode()
    properties[key.stringValue] = node
    propertyOrder.append(key.stringValue)
    return node
  }

  func require(_ key: any CodingKey) {
    let name = key.stringValue
    if !optionalKeys.contains(name) && !required.contains(name) { required.append(name) }
  }

  func schema() -> JSONSchema {
    var schema = JSONSchema.any
    if isKeyed {
      schema = .object(properties: propertyOrder.map { ($0, properties[$0]?.schema() ?? .any) }, required: required)
    } else if let items {
      schema = .array(items.schema())
    } else if let value {
      schema = value
    }
    return nullable ? .nullable(schema) : schema
  }
}

/// Records requests into `node`, or, when `node` is nil, only answers them.
struct RecordingDecoder: Decoder {
  let context: InferenceContext
  let node: ShapeNode?
  var codingPath: [any CodingKey]
  var userInfo: [CodingUserInfoKey: Any] { [:] }

  func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
    node?.isKeyed = true
    return KeyedDecodingContainer(KeyedRecorder<Key>(context: context, node: node, codingPath: codingPath))
  }

  func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
    if let node, node.items == nil { node.items = ShapeNode() }
    return UnkeyedRecorder(context: context, node: node?.items, codingPath: codingPath)
  }

  func singleValueContainer() throws -> any SingleValueDecodingContainer {
    SingleValueRecorder(context: context, node: node, codingPath: codingPath)
  }
}

struct KeyedRecorder<Key: CodingKey>: KeyedDecodingContainerProtocol {
  let context: InferenceContext
  let node: ShapeNode?
  var codingPath: [any CodingKey]
  var allKeys: [Key] { [] }

  func contains(_ key: Key) -> Bool {
    node?.optionalKeys.insert(key.stringValue)
    return true
  }

  func decodeNil(forKey key: Key) throws -> Bool {
    guard let node else { return true }
    node.property(key).nullable = true
    return false
  }

  func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
    if let node {
      node.property(key).value = context.schema(for: type)
      node.require(key)
    }
    return try context.placeholder(type)
  }

  func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try decode(type, key) }
  func decode(_ type: String.Type, forKey key: Key) throws -> String { try decode(type, key) }
  func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try decode(type, key) }
  func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try decode(type, key) }
  func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try decode(type, key) }
  func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try decode(type, key) }
  func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try decode(type, key) }
  func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try decode(type, key) }
  func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try decode(type, key) }
  func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try decode(type, key) }
  func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try decode(type, key) }
  func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try decode(type, key) }
  func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try decode(type, key) }
  func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try decode(type, key) }

  /// The generic `decode`, named apart so the overloads above cannot call themselves.
  private func decode<T: Decodable>(_ type: T.Type, _ key: Key) throws -> T {
    try decode(type, forKey: key) as T
  }

  func nestedContainer<NestedKey: CodingKey>(
    keyedBy type: NestedKey.Type, forKey key: Key
  ) throws -> KeyedDecodingContainer<NestedKey> {
    try child(key).container(keyedBy: type)
  }

  func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
    try child(key).unkeyedContainer()
  }

  func superDecoder() throws -> any Decoder { child(SuperKey()) }

  func superDecoder(forKey key: Key) throws -> any Decoder { child(key) }

  private func child(_ key: any CodingKey) -> RecordingDecoder {
    node?.require(key)
    return RecordingDecoder(context: context, node: node?.property(key), codingPath: codingPath + [key])
  }
}

/// The key `JSONEncoder` writes a superclass under.
private struct SuperKey: CodingKey {
  var stringValue: String { "super" }
  var intValue: Int? { nil }
  init() {}
  init?(stringValue: String) { nil }
  init?(intValue: Int) { nil }
}

/// Recording: one element (the first type requested becomes `items`), then the end.
/// Not recording: no elements.
struct UnkeyedRecorder: UnkeyedDecodingContainer {
  let context: InferenceContext
  let node: ShapeNode?
  var codingPath: [any CodingKey]
  var count: Int? { node == nil ? 0 : nil }
  var isAtEnd: Bool { node == nil || currentIndex > 0 }
  private(set) var currentIndex = 0

  init(context: InferenceContext, node: ShapeNode?, codingPath: [any CodingKey]) {
    self.context = context
    self.node = node
    self.codingPath = codingPath
  }

  /// The node to record the current element into, if it is the first.
  private var elementNode: ShapeNode? { currentIndex == 0 ? node : nil }

  mutating func decodeNil() throws -> Bool {
    elementNode?.nullable = true
    return false
  }

  mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
    elementNode?.value = context.schema(for: type)
    currentIndex += 1
    return try context.placeholder(type)
  }

  mutating func decode(_ type: Bool.Type) throws -> Bool { try decodeValue(type) }
  mutating func decode(_ type: String.Type) throws -> String { try decodeValue(type) }
  mutating func decode(_ type: Double.Type) throws -> Double { try decodeValue(type) }
  mutating func decode(_ type: Float.Type) throws -> Float { try decodeValue(type) }
  mutating func decode(_ type: Int.Type) throws -> Int { try decodeValue(type) }
  mutating func decode(_ type: Int8.Type) throws -> Int8 { try decodeValue(type) }
  mutating func decode(_ type: Int16.Type) throws -> Int16 { try decodeValue(type) }
  mutating func decode(_ type: Int32.Type) throws -> Int32 { try decodeValue(type) }
  mutating func decode(_ type: Int64.Type) throws -> Int64 { try decodeValue(type) }
  mutating func decode(_ type: UInt.Type) throws -> UInt { try decodeValue(type) }
  mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try decodeValue(type) }
  mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try decodeValue(type) }
  mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try decodeValue(type) }
  mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try decodeValue(type) }

  private mutating func decodeValue<T: Decodable>(_ type: T.Type) throws -> T { try decode(type) as T }

  mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
    try nextElement().container(keyedBy: type)
  }

  mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
    try nextElement().unkeyedContainer()
  }

  mutating func superDecoder() throws -> any Decoder { nextElement() }

  private mutating func nextElement() -> RecordingDecoder {
    let decoder = RecordingDecoder(context: context, node: elementNode, codingPath: codingPath)
    currentIndex += 1
    return decoder
  }
}

struct SingleValueRecorder: SingleValueDecodingContainer {
  let context: InferenceContext
  let node: ShapeNode?
  var codingPath: [any CodingKey]

  func decodeNil() -> Bool {
    guard let node else { return true }
    node.nullable = true
    return false
  }

  func decode<T: Decodable>(_ type: T.Type) throws -> T {
    node?.value = context.schema(for: type)
    return try context.placeholder(type)
  }

  func decode(_ type: Bool.Type) throws -> Bool { try decodeValue(type) }
  func decode(_ type: String.Type) throws -> String { try decodeValue(type) }
  func decode(_ type: Double.Type) throws -> Double { try decodeValue(type) }
  func decode(_ type: Float.Type) throws -> Float { try decodeValue(type) }
  func decode(_ type: Int.Type) throws -> Int { try decodeValue(type) }
  func decode(_ type: Int8.Type) throws -> Int8 { try decodeValue(type) }
  func decode(_ type: Int16.Type) throws -> Int16 { try decodeValue(type) }
  func decode(_ type: Int32.Type) throws -> Int32 { try decodeValue(type) }
  func decode(_ type: Int64.Type) throws -> Int64 { try decodeValue(type) }
  func decode(_ type: UInt.Type) throws -> UInt { try decodeValue(type) }
  func decode(_ type: UInt8.Type) throws -> UInt8 { try decodeValue(type) }
  func decode(_ type: UInt16.Type) throws -> UInt16 { try decodeValue(type) }
  func decode(_ type: UInt32.Type) throws -> UInt32 { try decodeValue(type) }
  func decode(_ type: UInt64.Type) throws -> UInt64 { try decodeValue(type) }

  private func decodeValue<T: Decodable>(_ type: T.Type) throws -> T { try decode(type) as T }
}

// MARK: - Examples

extension JSONSchema {
  /// A simple value this schema accepts, when one is easy to find: the first `const`,
  /// `enum` value or alternative; zero, empty or the minimum; objects with their
  /// required properties.
  func example(definitions: [String: JSONSchema], depth: Int = 0) -> JSONValue? {
    guard depth < 16 else { return nil }
    guard case .object(let object) = value else { return value == .bool(true) ? .null : nil }
    if let constant = object["const"] { return constant }
    if case .array(let values)? = object["enum"] { return values.first }
    if let name = referencedName {
      return definitions[name]?.example(definitions: definitions, depth: depth + 1)
    }
    for key in ["oneOf", "anyOf", "allOf"] {
      guard case .array(let options)? = object[key] else { continue }
      for option in options {
        if let example = JSONSchema(option).example(definitions: definitions, depth: depth + 1) { return example }
      }
      return nil
    }
    var type = object["type"]
    if case .array(let types)? = type { type = types.first }
    if type == nil, object["properties"] != nil { type = "object" }
    switch type {
    case "null"?: return .null
    case "boolean"?: return false
    case "integer"?, "number"?: return object["minimum"] ?? 0
    case "string"?:
      switch object["format"] {
      case "uuid"?: return "00000000-0000-0000-0000-000000000000"
      case "uri"?: return "https://example.com"
      case "date-time"?: return "2001-01-01T00:00:00Z"
      case "date"?: return "2001-01-01"
      default: return ""
      }
    case "array"?: return []
    case "object"?:
      guard case .object(let properties)? = object["properties"] else { return [:] }
      var result: [String: JSONValue] = [:]
      if case .array(let required)? = object["required"] {
        for case .string(let name) in required {
          result[name] = properties[name].flatMap { JSONSchema($0).example(definitions: definitions, depth: depth + 1) } ?? .null
        }
      }
      return .object(result)
    default: return .null
    }
  }
}
