import Foundation

/// Encodes `Encodable` values straight into a ``JSONValue``, without writing JSON text.
///
/// The result is what `JSONEncoder()` with its default strategies writes, read back as a
/// `JSONValue`: integers become `.int`, `Float` and `Double` become `.double`, `Data` a
/// base64 string, `URL` its `absoluteString`, `Date` its own `Codable` form (seconds since
/// 2001 as a number), and optionals that are `nil` leave their key out.
///
/// ```swift
/// struct Counter: Codable { var count: Int; var note: String? }
/// let value = try JSONValueEncoder().encode(Counter(count: 3, note: nil))   // ["count": 3]
/// ```
public struct JSONValueEncoder: Sendable {
  /// Handed to the values being encoded as `Encoder.userInfo`.
  ///
  /// ```swift
  /// var encoder = JSONValueEncoder()
  /// encoder.userInfo[CodingUserInfoKey(rawValue: "compact")!] = true
  /// ```
  public var userInfo: [CodingUserInfoKey: any Sendable] = [:]

  /// Called with every value that is not a primitive before it is encoded; a non-nil
  /// result is written in its place. Lets a caller encode some values by reference.
  ///
  /// ```swift
  /// var encoder = JSONValueEncoder()
  /// encoder.substitute = { ($0 as? Secret).map { _ in "redacted" } }
  /// ```
  public var substitute: (@Sendable (any Encodable) -> JSONValue?)?

  /// Whether a `JSONValue` inside the value is taken as it is, without a walk through it
  /// for a non-finite number: for values that were parsed or encoded by this package
  /// (neither lets one in). On a large tree the walk costs about as much as the rest of
  /// the encoding: a daemon's reply holding its whole state does not repeat it.
  package var trustsJSONValues = false

  /// An encoder that ``trustsJSONValues``: a daemon's replies and notifications, whose
  /// values it encoded or parsed itself.
  package static var trustingJSONValues: JSONValueEncoder {
    var encoder = JSONValueEncoder()
    encoder.trustsJSONValues = true
    return encoder
  }

  /// An encoder with no `userInfo`.
  ///
  /// ```swift
  /// let encoder = JSONValueEncoder()
  /// ```
  public init() {}

  /// Encodes `value`. Throws `EncodingError.invalidValue` for what JSON cannot hold: a
  /// non-finite `Float` or `Double`, or an integer outside `Int64`'s range.
  ///
  /// A value that encodes nothing at all becomes an empty object (`JSONEncoder` throws
  /// for that at the top level, and writes `{}` below it).
  ///
  /// ```swift
  /// let value = try JSONValueEncoder().encode(["a": [1, 2]])   // ["a": [1, 2]]
  /// ```
  public func encode<T: Encodable>(_ value: T) throws -> JSONValue {
    do {
      if let primitive = try _JSONPrimitive.encode(value, trusting: trustsJSONValues) { return primitive }
    } catch {
      throw error.encodingError(codingPath: [])
    }
    if let substitute, let replacement = substitute(value) { return replacement }
    let encoder = _JSONValueEncoderImpl(userInfo: userInfo, codingPath: [])
    encoder.substitute = substitute
    encoder.trustsJSONValues = trustsJSONValues
    try value.encode(to: encoder)
    return encoder.storage.finish()
  }
}

// MARK: - Primitives

/// Why a value cannot be held by a `JSONValue`; becomes an `EncodingError` once the coding
/// path is known (it is only worked out when something fails).
struct _JSONUnencodable: Error {
  let value: any Sendable
  let message: String

  func encodingError(codingPath: [any CodingKey]) -> EncodingError {
    .invalidValue(value, EncodingError.Context(codingPath: codingPath, debugDescription: message))
  }

  static func nonFinite<F: BinaryFloatingPoint & Sendable>(_ value: F) -> _JSONUnencodable {
    _JSONUnencodable(value: value, message: "Unable to encode \(F.self).\(value) directly in JSON.")
  }

  static func tooLarge<I: BinaryInteger & Sendable>(_ value: I) -> _JSONUnencodable {
    _JSONUnencodable(
      value: value,
      message: "Unable to encode \(I.self) \(value) as a JSON integer: it is outside Int64's range "
        + "(\(Int64.min)...\(Int64.max)).")
  }
}

/// The values that are written directly rather than through their own `encode(to:)`.
enum _JSONPrimitive {
  /// `value` as a `JSONValue` if its type is one written directly (numbers, strings, and
  /// Foundation's `Date`, `Data`, `URL` and `Decimal`); nil for any other type.
  ///
  /// Types are compared before anything is cast, so other types cost a few comparisons. A
  /// `JSONValue` is looked through for non-finite numbers unless `trusting`.
  @inline(__always)
  static func encode<T: Encodable>(_ value: T, trusting: Bool = false) throws(_JSONUnencodable) -> JSONValue? {
    if T.self == String.self { return .string(_identity(value, as: String.self)) }
    if T.self == Int.self { return .int(Int64(_identity(value, as: Int.self))) }
    if T.self == Bool.self { return .bool(_identity(value, as: Bool.self)) }
    if T.self == Double.self { return try double(_identity(value, as: Double.self)).get() }
    if T.self == Int64.self { return .int(_identity(value, as: Int64.self)) }
    if T.self == JSONValue.self {
      let json = _identity(value, as: JSONValue.self)
      // Non-finite numbers go the long way round, through `rarer`'s "no fast path", which
      // fails at the right path.
      if trusting || json.isFinite { return json }
    }
    return try rarer(value)
  }

  private static func rarer<T: Encodable>(_ value: T) throws(_JSONUnencodable) -> JSONValue? {
    if T.self == Int32.self { return .int(Int64(_identity(value, as: Int32.self))) }
    if T.self == UInt.self { return try integer(_identity(value, as: UInt.self)).get() }
    if T.self == UInt64.self { return try integer(_identity(value, as: UInt64.self)).get() }
    if T.self == UInt32.self { return .int(Int64(_identity(value, as: UInt32.self))) }
    if T.self == Int8.self { return .int(Int64(_identity(value, as: Int8.self))) }
    if T.self == Int16.self { return .int(Int64(_identity(value, as: Int16.self))) }
    if T.self == UInt8.self { return .int(Int64(_identity(value, as: UInt8.self))) }
    if T.self == UInt16.self { return .int(Int64(_identity(value, as: UInt16.self))) }
    if T.self == Float.self { return try float(_identity(value, as: Float.self)).get() }
    if T.self == Date.self { return try double(_identity(value, as: Date.self).timeIntervalSinceReferenceDate).get() }
    if T.self == Data.self { return .string(_identity(value, as: Data.self).base64EncodedString()) }
    if T.self == URL.self { return .string(_identity(value, as: URL.self).absoluteString) }
    if T.self == Decimal.self { return decimal(_identity(value, as: Decimal.self)) }
    if T.self == Int128.self { return try integer(_identity(value, as: Int128.self)).get() }
    if T.self == UInt128.self { return try integer(_identity(value, as: UInt128.self)).get() }
    return nil
  }

  @inline(__always)
  static func double(_ value: Double) -> Result<JSONValue, _JSONUnencodable> {
    value.isFinite ? .success(.double(value)) : .failure(.nonFinite(value))
  }

  /// `JSONEncoder` writes a `Float` as its shortest description, which reads back as the
  /// `Double` nearest that text (`0.1`), not as the `Float`'s exact value.
  static func float(_ value: Float) -> Result<JSONValue, _JSONUnencodable> {
    value.isFinite ? .success(.double(Double(value.description) ?? Double(value))) : .failure(.nonFinite(value))
  }

  @inline(__always)
  static func integer<I: BinaryInteger & Sendable>(_ value: I) -> Result<JSONValue, _JSONUnencodable> {
    guard let exact = Int64(exactly: value) else { return .failure(.tooLarge(value)) }
    return .success(.int(exact))
  }

  /// `JSONEncoder` writes a `Decimal`'s description; read back, that is an integer when it
  /// fits in `Int64` and a `Double` otherwise.
  static func decimal(_ value: Decimal) -> JSONValue {
    let text = value.description
    if let integer = Int64(text) { return .int(integer) }
    return .double(Double(text) ?? NSDecimalNumber(decimal: value).doubleValue)
  }
}

/// `value`, whose type has just been checked to be `U`, as a `U`.
@inline(__always)
func _identity<T, U>(_ value: T, as type: U.Type) -> U {
  unsafeBitCast(value, to: U.self)
}

extension JSONValue {
  /// Whether every number inside is finite (JSON has no NaN or infinity).
  var isFinite: Bool {
    switch self {
    case .null, .bool, .int, .string: return true
    case .double(let value): return value.isFinite
    case .array(let elements): return elements.allSatisfy(\.isFinite)
    case .object(let members): return members.values.allSatisfy(\.isFinite)
    }
  }
}

// MARK: - Coding paths

/// A coding key of the encoder's or decoder's own: an array index (`Index 2`, like
/// `JSONDecoder`'s), `super`, or a plain string or integer key.
///
/// Small enough to sit inside an `any CodingKey` without a heap allocation.
enum _JSONKey: CodingKey {
  case index(Int)
  case string(String)
  case int(Int)

  static let `super` = _JSONKey.string("super")

  init(stringValue: String) { self = .string(stringValue) }
  init(intValue: Int) { self = .int(intValue) }

  var stringValue: String {
    switch self {
    case .index(let index): return "Index \(index)"
    case .string(let string): return string
    case .int(let int): return "\(int)"
    }
  }

  var intValue: Int? {
    switch self {
    case .index(let index), .int(let index): return index
    case .string: return nil
    }
  }
}

/// The coding path of an encoder or decoder that is reused for every nested value.
///
/// Containers do not keep a copy of the path (copying would make each push copy the array);
/// they keep how deep their owner was (`depth`) and the keys of any nested containers in
/// between (`extra`), and the path is rebuilt only when someone asks for it.
struct _JSONCodingPath {
  var keys: [any CodingKey]

  init(_ keys: [any CodingKey]) { self.keys = keys }

  /// The path of a container made at `depth`, under `extra` nested-container keys.
  func path(depth: Int, extra: [any CodingKey]) -> [any CodingKey] {
    if keys.count == depth && extra.isEmpty { return keys }
    return Array(keys.prefix(depth)) + extra
  }

  /// The path of that container's member `key`.
  func path(depth: Int, extra: [any CodingKey], appending key: any CodingKey) -> [any CodingKey] {
    var path = path(depth: depth, extra: extra)
    path.append(key)
    return path
  }

  /// Moves to the path of a container's member; hand the result to `leave`.
  @inline(__always)
  mutating func enter(depth: Int, extra: [any CodingKey], key: any CodingKey) -> [any CodingKey]? {
    if keys.count == depth {
      if !extra.isEmpty { keys.append(contentsOf: extra) }
      keys.append(key)
      return nil
    }
    // A container used out of turn: rebuild the path and put the old one back afterwards.
    let saved = keys
    keys = path(depth: depth, extra: extra, appending: key)
    return saved
  }

  @inline(__always)
  mutating func leave(depth: Int, saved: [any CodingKey]?) {
    if let saved {
      keys = saved
    } else if keys.count > depth {
      keys.removeLast(keys.count - depth)
    }
  }
}

// MARK: - Storage

// The mutable state of the boxes and encoders below is `@exclusivity(unchecked)`: it
// belongs to one `encode` call on one thread, and every access is a short read or write
// that runs no other code, so the runtime's dynamic exclusivity checks (a fifth to a third
// of the encoding time, measured) could never catch anything.

/// What one value has encoded so far.
enum _JSONEncodedStorage {
  case empty
  case value(JSONValue)
  case object(_JSONObjectBox)
  case array(_JSONArrayBox)

  /// The finished value; a value that encoded nothing is an empty object, as with `JSONEncoder`.
  func finish() -> JSONValue {
    switch self {
    case .empty: return .object([:])
    case .value(let value): return value
    case .object(let box): return box.finish()
    case .array(let box): return box.finish()
    }
  }
}

/// A container written into another through a nested container or a super encoder; it
/// is read when the outer container is finished.
enum _JSONPendingValue {
  case object(_JSONObjectBox)
  case array(_JSONArrayBox)
  case encoder(_JSONValueEncoderImpl)

  func finish() -> JSONValue {
    switch self {
    case .object(let box): return box.finish()
    case .array(let box): return box.finish()
    case .encoder(let encoder): return encoder.storage.finish()
    }
  }
}

/// The members of an object being encoded, shared by its keyed containers.
///
/// Members are gathered in order and made into a dictionary once, at its final size, so
/// that keys are hashed once rather than again at every growth; a key written twice keeps
/// its last value, as with `JSONEncoder`.
final class _JSONObjectBox {
  @exclusivity(unchecked) private var members: [(String, JSONValue)] = []
  @exclusivity(unchecked) var pending: [String: _JSONPendingValue] = [:]
  let depth: Int
  let extra: [any CodingKey]

  init(members: [String: JSONValue] = [:], depth: Int, extra: [any CodingKey]) {
    if members.isEmpty {
      self.members.reserveCapacity(8)
    } else {
      self.members = members.map { ($0.key, $0.value) }
    }
    self.depth = depth
    self.extra = extra
  }

  @inline(__always)
  func set(_ value: JSONValue, for key: String) {
    members.append((key, value))
    if !pending.isEmpty { pending[key] = nil }
  }

  /// The value last written for `key`, if any.
  func member(_ key: String) -> JSONValue? {
    members.last(where: { $0.0 == key })?.1
  }

  /// Forgets what was written for `key` (a nested container or super encoder takes over).
  func removeMember(_ key: String) {
    members.removeAll(where: { $0.0 == key })
  }

  func finish() -> JSONValue {
    var object = Dictionary(members, uniquingKeysWith: { _, last in last })
    if !pending.isEmpty {
      for (key, value) in pending { object[key] = value.finish() }
    }
    return .object(object)
  }
}

/// The elements of an array being encoded, shared by its unkeyed containers.
final class _JSONArrayBox {
  @exclusivity(unchecked) var elements: [JSONValue] = []
  @exclusivity(unchecked) var pending: [(index: Int, value: _JSONPendingValue)] = []
  let depth: Int
  let extra: [any CodingKey]

  init(depth: Int, extra: [any CodingKey]) {
    self.depth = depth
    self.extra = extra
  }

  func finish() -> JSONValue {
    if !pending.isEmpty {
      for (index, value) in pending { elements[index] = value.finish() }
      pending = []
    }
    return .array(elements)
  }
}

// MARK: - Encoder

/// The `Encoder` handed to values. One is reused for every nested value of an `encode`
/// call: it saves what it holds, encodes the member, and puts it back.
final class _JSONValueEncoderImpl: Encoder {
  @exclusivity(unchecked) var storage: _JSONEncodedStorage = .empty
  @exclusivity(unchecked) var path: _JSONCodingPath
  let sendableUserInfo: [CodingUserInfoKey: any Sendable]
  var substitute: (@Sendable (any Encodable) -> JSONValue?)?
  /// ``JSONValueEncoder/trustsJSONValues``.
  var trustsJSONValues = false

  init(userInfo: [CodingUserInfoKey: any Sendable], codingPath: [any CodingKey]) {
    self.sendableUserInfo = userInfo
    self.path = _JSONCodingPath(codingPath)
  }

  var codingPath: [any CodingKey] { path.keys }
  var userInfo: [CodingUserInfoKey: Any] { sendableUserInfo }

  func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
    KeyedEncodingContainer(_JSONKeyedEncoder(encoder: self, box: objectBox()))
  }

  /// The object being written at this path: a new one, or the one a keyed container made.
  func objectBox() -> _JSONObjectBox {
    switch storage {
    case .empty:
      let box = _JSONObjectBox(depth: path.keys.count, extra: [])
      storage = .object(box)
      return box
    case .object(let box):
      return box
    default:
      preconditionFailure("Attempt to push new keyed encoding container when already previously encoded at this path.")
    }
  }

  func unkeyedContainer() -> any UnkeyedEncodingContainer {
    switch storage {
    case .empty:
      let box = _JSONArrayBox(depth: path.keys.count, extra: [])
      storage = .array(box)
      return _JSONUnkeyedEncoder(encoder: self, box: box)
    case .array(let box):
      return _JSONUnkeyedEncoder(encoder: self, box: box)
    default:
      preconditionFailure("Attempt to push new unkeyed encoding container when already previously encoded at this path.")
    }
  }

  func singleValueContainer() -> any SingleValueEncodingContainer {
    _JSONSingleValueEncoder(encoder: self)
  }

  /// Encodes a member of a container made at `depth` under `extra`.
  @inline(__always)
  func encode<T: Encodable>(_ value: T, depth: Int, extra: [any CodingKey], key: any CodingKey) throws -> JSONValue {
    do {
      if let primitive = try _JSONPrimitive.encode(value, trusting: trustsJSONValues) { return primitive }
    } catch {
      throw error.encodingError(codingPath: path.path(depth: depth, extra: extra, appending: key))
    }
    let saved = path.enter(depth: depth, extra: extra, key: key)
    defer { path.leave(depth: depth, saved: saved) }
    return try encodeComposite(value)
  }

  /// Encodes a value at the current path (through a single-value container).
  func encodeHere<T: Encodable>(_ value: T) throws -> JSONValue {
    do {
      if let primitive = try _JSONPrimitive.encode(value, trusting: trustsJSONValues) { return primitive }
    } catch {
      throw error.encodingError(codingPath: path.keys)
    }
    return try encodeComposite(value)
  }

  /// Runs `value.encode(to:)` with fresh storage and returns what it encoded.
  private func encodeComposite<T: Encodable>(_ value: T) throws -> JSONValue {
    if let substitute, let replacement = substitute(value) { return replacement }
    let outer = storage
    storage = .empty
    defer { storage = outer }
    try value.encode(to: self)
    return storage.finish()
  }

  /// A converted number, or the conversion's error at `path`.
  @inline(__always)
  func checked(_ result: Result<JSONValue, _JSONUnencodable>, at path: () -> [any CodingKey]) throws -> JSONValue {
    switch result {
    case .success(let value): return value
    case .failure(let error): throw error.encodingError(codingPath: path())
    }
  }
}

// MARK: - Containers

struct _JSONKeyedEncoder<Key: CodingKey>: KeyedEncodingContainerProtocol {
  let encoder: _JSONValueEncoderImpl
  let box: _JSONObjectBox

  var codingPath: [any CodingKey] { encoder.path.path(depth: box.depth, extra: box.extra) }

  private func path(_ key: Key) -> [any CodingKey] {
    encoder.path.path(depth: box.depth, extra: box.extra, appending: key)
  }

  mutating func encodeNil(forKey key: Key) throws { box.set(.null, for: key.stringValue) }
  mutating func encode(_ value: Bool, forKey key: Key) throws { box.set(.bool(value), for: key.stringValue) }
  mutating func encode(_ value: String, forKey key: Key) throws { box.set(.string(value), for: key.stringValue) }
  mutating func encode(_ value: Int, forKey key: Key) throws { box.set(.int(Int64(value)), for: key.stringValue) }
  mutating func encode(_ value: Int8, forKey key: Key) throws { box.set(.int(Int64(value)), for: key.stringValue) }
  mutating func encode(_ value: Int16, forKey key: Key) throws { box.set(.int(Int64(value)), for: key.stringValue) }
  mutating func encode(_ value: Int32, forKey key: Key) throws { box.set(.int(Int64(value)), for: key.stringValue) }
  mutating func encode(_ value: Int64, forKey key: Key) throws { box.set(.int(value), for: key.stringValue) }
  mutating func encode(_ value: UInt8, forKey key: Key) throws { box.set(.int(Int64(value)), for: key.stringValue) }
  mutating func encode(_ value: UInt16, forKey key: Key) throws { box.set(.int(Int64(value)), for: key.stringValue) }
  mutating func encode(_ value: UInt32, forKey key: Key) throws { box.set(.int(Int64(value)), for: key.stringValue) }

  mutating func encode(_ value: UInt, forKey key: Key) throws { try set(_JSONPrimitive.integer(value), forKey: key) }
  mutating func encode(_ value: UInt64, forKey key: Key) throws { try set(_JSONPrimitive.integer(value), forKey: key) }
  mutating func encode(_ value: Int128, forKey key: Key) throws { try set(_JSONPrimitive.integer(value), forKey: key) }
  mutating func encode(_ value: UInt128, forKey key: Key) throws { try set(_JSONPrimitive.integer(value), forKey: key) }
  mutating func encode(_ value: Double, forKey key: Key) throws { try set(_JSONPrimitive.double(value), forKey: key) }
  mutating func encode(_ value: Float, forKey key: Key) throws { try set(_JSONPrimitive.float(value), forKey: key) }

  private func set(_ number: Result<JSONValue, _JSONUnencodable>, forKey key: Key) throws {
    box.set(try encoder.checked(number, at: { path(key) }), for: key.stringValue)
  }

  mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
    box.set(try encoder.encode(value, depth: box.depth, extra: box.extra, key: key), for: key.stringValue)
  }

  mutating func nestedContainer<NestedKey: CodingKey>(
    keyedBy keyType: NestedKey.Type, forKey key: Key
  ) -> KeyedEncodingContainer<NestedKey> {
    let name = key.stringValue
    let nested: _JSONObjectBox
    switch (box.pending[name], box.member(name)) {
    case (.object(let existing)?, _):
      nested = existing
    case (nil, .object(let members)?):
      // Like JSONEncoder, a nested container adds to an object already encoded for the key.
      nested = _JSONObjectBox(members: members, depth: box.depth, extra: box.extra + [key])
      box.removeMember(name)
      box.pending[name] = .object(nested)
    case (nil, nil):
      nested = _JSONObjectBox(depth: box.depth, extra: box.extra + [key])
      box.pending[name] = .object(nested)
    default:
      preconditionFailure(
        "Attempt to re-encode into nested KeyedEncodingContainer<\(Key.self)> for key \"\(name)\" is invalid: "
          + "non-keyed container already encoded for this key")
    }
    return KeyedEncodingContainer(_JSONKeyedEncoder<NestedKey>(encoder: encoder, box: nested))
  }

  mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
    let name = key.stringValue
    let nested: _JSONArrayBox
    switch (box.pending[name], box.member(name)) {
    case (.array(let existing)?, _):
      nested = existing
    case (nil, .array(let elements)?):
      nested = _JSONArrayBox(depth: box.depth, extra: box.extra + [key])
      nested.elements = elements
      box.removeMember(name)
      box.pending[name] = .array(nested)
    case (nil, nil):
      nested = _JSONArrayBox(depth: box.depth, extra: box.extra + [key])
      box.pending[name] = .array(nested)
    default:
      preconditionFailure(
        "Attempt to re-encode into nested UnkeyedEncodingContainer<\(Key.self)> for key \"\(name)\" is invalid: "
          + "keyed container/single value already encoded for this key")
    }
    return _JSONUnkeyedEncoder(encoder: encoder, box: nested)
  }

  mutating func superEncoder() -> any Encoder { superEncoder(for: _JSONKey.super) }
  mutating func superEncoder(forKey key: Key) -> any Encoder { superEncoder(for: key) }

  private func superEncoder(for key: any CodingKey) -> any Encoder {
    let superEncoder = _JSONValueEncoderImpl(
      userInfo: encoder.sendableUserInfo,
      codingPath: encoder.path.path(depth: box.depth, extra: box.extra, appending: key))
    box.removeMember(key.stringValue)
    box.pending[key.stringValue] = .encoder(superEncoder)
    return superEncoder
  }
}

struct _JSONUnkeyedEncoder: UnkeyedEncodingContainer {
  let encoder: _JSONValueEncoderImpl
  let box: _JSONArrayBox

  var codingPath: [any CodingKey] { encoder.path.path(depth: box.depth, extra: box.extra) }
  var count: Int { box.elements.count }

  private func nextPath() -> [any CodingKey] {
    encoder.path.path(depth: box.depth, extra: box.extra, appending: _JSONKey.index(box.elements.count))
  }

  mutating func encodeNil() throws { box.elements.append(.null) }
  mutating func encode(_ value: Bool) throws { box.elements.append(.bool(value)) }
  mutating func encode(_ value: String) throws { box.elements.append(.string(value)) }
  mutating func encode(_ value: Int) throws { box.elements.append(.int(Int64(value))) }
  mutating func encode(_ value: Int8) throws { box.elements.append(.int(Int64(value))) }
  mutating func encode(_ value: Int16) throws { box.elements.append(.int(Int64(value))) }
  mutating func encode(_ value: Int32) throws { box.elements.append(.int(Int64(value))) }
  mutating func encode(_ value: Int64) throws { box.elements.append(.int(value)) }
  mutating func encode(_ value: UInt8) throws { box.elements.append(.int(Int64(value))) }
  mutating func encode(_ value: UInt16) throws { box.elements.append(.int(Int64(value))) }
  mutating func encode(_ value: UInt32) throws { box.elements.append(.int(Int64(value))) }

  mutating func encode(_ value: UInt) throws { try append(_JSONPrimitive.integer(value)) }
  mutating func encode(_ value: UInt64) throws { try append(_JSONPrimitive.integer(value)) }
  mutating func encode(_ value: Int128) throws { try append(_JSONPrimitive.integer(value)) }
  mutating func encode(_ value: UInt128) throws { try append(_JSONPrimitive.integer(value)) }
  mutating func encode(_ value: Double) throws { try append(_JSONPrimitive.double(value)) }
  mutating func encode(_ value: Float) throws { try append(_JSONPrimitive.float(value)) }

  private func append(_ number: Result<JSONValue, _JSONUnencodable>) throws {
    box.elements.append(try encoder.checked(number, at: nextPath))
  }

  mutating func encode<T: Encodable>(_ value: T) throws {
    let key = _JSONKey.index(box.elements.count)
    box.elements.append(try encoder.encode(value, depth: box.depth, extra: box.extra, key: key))
  }

  mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
    let index = box.elements.count
    let nested = _JSONObjectBox(depth: box.depth, extra: box.extra + [_JSONKey.index(index)])
    box.elements.append(.null)
    box.pending.append((index, .object(nested)))
    return KeyedEncodingContainer(_JSONKeyedEncoder<NestedKey>(encoder: encoder, box: nested))
  }

  mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
    let index = box.elements.count
    let nested = _JSONArrayBox(depth: box.depth, extra: box.extra + [_JSONKey.index(index)])
    box.elements.append(.null)
    box.pending.append((index, .array(nested)))
    return _JSONUnkeyedEncoder(encoder: encoder, box: nested)
  }

  mutating func superEncoder() -> any Encoder {
    let index = box.elements.count
    let superEncoder = _JSONValueEncoderImpl(
      userInfo: encoder.sendableUserInfo,
      codingPath: encoder.path.path(depth: box.depth, extra: box.extra, appending: _JSONKey.index(index)))
    box.elements.append(.null)
    box.pending.append((index, .encoder(superEncoder)))
    return superEncoder
  }
}

struct _JSONSingleValueEncoder: SingleValueEncodingContainer {
  let encoder: _JSONValueEncoderImpl

  var codingPath: [any CodingKey] { encoder.path.keys }

  private func store(_ value: JSONValue) {
    guard case .empty = encoder.storage else {
      preconditionFailure("Attempt to encode value through single value container when previously value already encoded.")
    }
    encoder.storage = .value(value)
  }

  private func store(_ number: Result<JSONValue, _JSONUnencodable>) throws {
    store(try encoder.checked(number, at: { encoder.path.keys }))
  }

  mutating func encodeNil() throws { store(.null) }
  mutating func encode(_ value: Bool) throws { store(.bool(value)) }
  mutating func encode(_ value: String) throws { store(.string(value)) }
  mutating func encode(_ value: Int) throws { store(.int(Int64(value))) }
  mutating func encode(_ value: Int8) throws { store(.int(Int64(value))) }
  mutating func encode(_ value: Int16) throws { store(.int(Int64(value))) }
  mutating func encode(_ value: Int32) throws { store(.int(Int64(value))) }
  mutating func encode(_ value: Int64) throws { store(.int(value)) }
  mutating func encode(_ value: UInt8) throws { store(.int(Int64(value))) }
  mutating func encode(_ value: UInt16) throws { store(.int(Int64(value))) }
  mutating func encode(_ value: UInt32) throws { store(.int(Int64(value))) }
  mutating func encode(_ value: UInt) throws { try store(_JSONPrimitive.integer(value)) }
  mutating func encode(_ value: UInt64) throws { try store(_JSONPrimitive.integer(value)) }
  mutating func encode(_ value: Int128) throws { try store(_JSONPrimitive.integer(value)) }
  mutating func encode(_ value: UInt128) throws { try store(_JSONPrimitive.integer(value)) }
  mutating func encode(_ value: Double) throws { try store(_JSONPrimitive.double(value)) }
  mutating func encode(_ value: Float) throws { try store(_JSONPrimitive.float(value)) }

  mutating func encode<T: Encodable>(_ value: T) throws {
    guard case .empty = encoder.storage else {
      preconditionFailure("Attempt to encode value through single value container when previously value already encoded.")
    }
    store(try encoder.encodeHere(value))
  }
}
