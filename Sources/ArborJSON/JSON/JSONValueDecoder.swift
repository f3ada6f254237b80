import Foundation

/// Decodes `Decodable` values straight from a ``JSONValue``, without reading JSON text.
///
/// It accepts what `JSONDecoder()` with its default strategies accepts and throws the same
/// `DecodingError`s, with the same coding paths (array elements as `Index 2` keys whose
/// `intValue` is the index).
///
/// ```swift
/// struct Counter: Codable { var count: Int; var note: String? }
/// let counter = try JSONValueDecoder().decode(Counter.self, from: ["count": 3])
/// ```
public struct JSONValueDecoder: Sendable {
  /// Handed to the values being decoded as `Decoder.userInfo`.
  ///
  /// ```swift
  /// var decoder = JSONValueDecoder()
  /// decoder.userInfo[CodingUserInfoKey(rawValue: "lenient")!] = true
  /// ```
  public var userInfo: [CodingUserInfoKey: any Sendable] = [:]

  /// A decoder with no `userInfo`.
  ///
  /// ```swift
  /// let decoder = JSONValueDecoder()
  /// ```
  public init() {}

  /// Decodes a `T` from `value`.
  ///
  /// Integers are read from `.int`, or from a `.double` that is a whole number; a number
  /// that does not fit the type is `DecodingError.dataCorrupted` ("Number 300 does not fit
  /// in UInt8."). `Data` is read from base64, `URL` from a string, `Date` from a number.
  ///
  /// ```swift
  /// let tags = try JSONValueDecoder().decode([String].self, from: ["a", "b"])
  /// ```
  public func decode<T: Decodable>(_ type: T.Type, from value: JSONValue) throws -> T {
    try _JSONUnwrap.primitive(T.self, from: value, at: { [] }) {
      try T(from: _JSONValueDecoderImpl(value: value, userInfo: userInfo, codingPath: []))
    }
  }
}

// MARK: - Reading values

/// Reads Swift values out of `JSONValue`s, with `JSONDecoder`'s errors. `path` is only
/// called when something fails.
enum _JSONUnwrap {
  /// `value` as a `T` if `T` is a type read directly (numbers, strings, and Foundation's
  /// `Date`, `Data`, `URL` and `Decimal`); `orElse()` for any other type.
  ///
  /// It returns a `T`, not a `T?`: unspecialized, an optional result looked up the
  /// metadata of `Optional<T>` at each call, a tenth of decoding a restored model.
  @inline(__always)
  static func primitive<T: Decodable>(
    _ type: T.Type, from value: JSONValue, at path: () -> [any CodingKey], orElse decode: () throws -> T
  ) throws -> T {
    if T.self == String.self { return _identity(try string(value, at: path), as: T.self) }
    if T.self == Int.self { return _identity(try integer(value, as: Int.self, at: path), as: T.self) }
    if T.self == Bool.self { return _identity(try bool(value, at: path), as: T.self) }
    if T.self == Double.self { return _identity(try double(value, at: path), as: T.self) }
    if T.self == Int64.self { return _identity(try integer(value, as: Int64.self, at: path), as: T.self) }
    if T.self == JSONValue.self { return _identity(value, as: T.self) }
    return try rarer(type, from: value, at: path, orElse: decode)
  }

  private static func rarer<T: Decodable>(
    _ type: T.Type, from value: JSONValue, at path: () -> [any CodingKey], orElse decode: () throws -> T
  ) throws -> T {
    if T.self == Int32.self { return _identity(try integer(value, as: Int32.self, at: path), as: T.self) }
    if T.self == UInt.self { return _identity(try integer(value, as: UInt.self, at: path), as: T.self) }
    if T.self == UInt64.self { return _identity(try integer(value, as: UInt64.self, at: path), as: T.self) }
    if T.self == UInt32.self { return _identity(try integer(value, as: UInt32.self, at: path), as: T.self) }
    if T.self == Int8.self { return _identity(try integer(value, as: Int8.self, at: path), as: T.self) }
    if T.self == Int16.self { return _identity(try integer(value, as: Int16.self, at: path), as: T.self) }
    if T.self == UInt8.self { return _identity(try integer(value, as: UInt8.self, at: path), as: T.self) }
    if T.self == UInt16.self { return _identity(try integer(value, as: UInt16.self, at: path), as: T.self) }
    if T.self == Float.self { return _identity(try float(value, at: path), as: T.self) }
    if T.self == Date.self { return _identity(try date(value, at: path), as: T.self) }
    if T.self == Data.self { return _identity(try data(value, at: path), as: T.self) }
    if T.self == URL.self { return _identity(try url(value, at: path), as: T.self) }
    if T.self == Decimal.self { return _identity(try decimal(value, at: path), as: T.self) }
    if T.self == Int128.self { return _identity(try integer(value, as: Int128.self, at: path), as: T.self) }
    if T.self == UInt128.self { return _identity(try integer(value, as: UInt128.self, at: path), as: T.self) }
    return try decode()
  }

  static func bool(_ value: JSONValue, at path: () -> [any CodingKey]) throws -> Bool {
    guard case .bool(let bool) = value else { throw mismatch(Bool.self, value, path()) }
    return bool
  }

  static func string(_ value: JSONValue, at path: () -> [any CodingKey]) throws -> String {
    guard case .string(let string) = value else { throw mismatch(String.self, value, path()) }
    return string
  }

  /// An integer from `.int`, or from a `.double` that is a whole number; either must fit.
  @inline(__always)
  static func integer<I: FixedWidthInteger>(
    _ value: JSONValue, as type: I.Type, at path: () -> [any CodingKey]
  ) throws -> I {
    switch value {
    case .int(let int):
      if let exact = I(exactly: int) { return exact }
      throw doesNotFit(I.self, "\(int)", path())
    case .double(let double):
      if let exact = I(exactly: double) { return exact }
      throw doesNotFit(I.self, "\(double)", path())
    default:
      throw mismatch(I.self, value, path())
    }
  }

  static func double(_ value: JSONValue, at path: () -> [any CodingKey]) throws -> Double {
    switch value {
    case .double(let double): return double
    case .int(let int): return Double(int)
    default: throw mismatch(Double.self, value, path())
    }
  }

  static func float(_ value: JSONValue, at path: () -> [any CodingKey]) throws -> Float {
    switch value {
    case .double(let double):
      let float = Float(double)
      guard float.isFinite || !double.isFinite else { throw doesNotFit(Float.self, "\(double)", path()) }
      return float
    case .int(let int):
      return Float(int)
    default:
      throw mismatch(Float.self, value, path())
    }
  }

  /// A `Date` as its own `Codable` writes it (`JSONDecoder`'s `.deferredToDate`): seconds
  /// since 2001.
  static func date(_ value: JSONValue, at path: () -> [any CodingKey]) throws -> Date {
    if case .null = value { throw mismatch(Date.self, value, path()) }
    return Date(timeIntervalSinceReferenceDate: try double(value, at: path))
  }

  static func data(_ value: JSONValue, at path: () -> [any CodingKey]) throws -> Data {
    if case .null = value { throw mismatch(Data.self, value, path()) }
    guard let data = Data(base64Encoded: try string(value, at: path)) else {
      throw DecodingError.dataCorrupted(.init(codingPath: path(), debugDescription: "Encountered Data is not valid Base64."))
    }
    return data
  }

  static func url(_ value: JSONValue, at path: () -> [any CodingKey]) throws -> URL {
    if case .null = value { throw mismatch(URL.self, value, path()) }
    guard let url = URL(string: try string(value, at: path)) else {
      throw DecodingError.dataCorrupted(.init(codingPath: path(), debugDescription: "Invalid URL string."))
    }
    return url
  }

  static func decimal(_ value: JSONValue, at path: () -> [any CodingKey]) throws -> Decimal {
    switch value {
    case .int(let int):
      return Decimal(int)
    case .double(let double):
      // Read from the shortest text, as JSONDecoder reads the number's text.
      guard let decimal = Decimal(string: "\(double)", locale: Locale(identifier: "en_US_POSIX")) else {
        throw doesNotFit(Decimal.self, "\(double)", path())
      }
      return decimal
    default:
      throw mismatch(Decimal.self, value, path())
    }
  }

  /// The members of an object, for a keyed container.
  static func members(_ value: JSONValue, at path: () -> [any CodingKey]) throws -> [String: JSONValue] {
    switch value {
    case .object(let members):
      return members
    case .null:
      throw DecodingError.valueNotFound(
        [String: Any].self,
        .init(codingPath: path(), debugDescription: "Cannot get keyed decoding container -- found null value instead"))
    default:
      throw mismatch([String: Any].self, value, path())
    }
  }

  /// The elements of an array, for an unkeyed container.
  static func elements(_ value: JSONValue, at path: () -> [any CodingKey]) throws -> [JSONValue] {
    switch value {
    case .array(let elements):
      return elements
    case .null:
      throw DecodingError.valueNotFound(
        [Any].self,
        .init(codingPath: path(), debugDescription: "Cannot get unkeyed decoding container -- found null value instead"))
    default:
      throw mismatch([Any].self, value, path())
    }
  }

  /// `valueNotFound` for null, `typeMismatch` for anything else.
  static func mismatch(_ type: Any.Type, _ value: JSONValue, _ path: [any CodingKey]) -> DecodingError {
    if case .null = value {
      return .valueNotFound(
        type, .init(codingPath: path, debugDescription: "Cannot get value of type \(type) -- found null value instead"))
    }
    return .typeMismatch(
      type, .init(codingPath: path, debugDescription: "Expected to decode \(type) but found \(value.codingDescription) instead."))
  }

  static func doesNotFit(_ type: Any.Type, _ number: String, _ path: [any CodingKey]) -> DecodingError {
    .dataCorrupted(.init(codingPath: path, debugDescription: "Number \(number) does not fit in \(type)."))
  }
}

extension JSONValue {
  /// The value's kind as `JSONDecoder`'s messages name it.
  fileprivate var codingDescription: String {
    switch self {
    case .null: return "null"
    case .bool: return "bool"
    case .int, .double: return "number"
    case .string: return "a string"
    case .array: return "an array"
    case .object: return "a dictionary"
    }
  }
}

// MARK: - Decoder

/// The `Decoder` handed to values. One is reused for every nested value of a `decode`
/// call: it saves the value it holds, decodes the member, and puts it back.
///
/// Its state is `@exclusivity(unchecked)` for the reason given in JSONValueEncoder.swift:
/// one call on one thread, and no other code runs during an access.
final class _JSONValueDecoderImpl: Decoder {
  @exclusivity(unchecked) var value: JSONValue
  @exclusivity(unchecked) var path: _JSONCodingPath
  let sendableUserInfo: [CodingUserInfoKey: any Sendable]
  /// The same dictionary as `Decoder` hands it out, converted once: a conversion on each
  /// read built a new dictionary for every value that read it (each model of a restore).
  let userInfo: [CodingUserInfoKey: Any]

  init(value: JSONValue, userInfo: [CodingUserInfoKey: any Sendable], codingPath: [any CodingKey]) {
    self.value = value
    self.sendableUserInfo = userInfo
    self.userInfo = userInfo
    self.path = _JSONCodingPath(codingPath)
  }

  /// The object ``_JSONObjectReader/object(of:_:)`` worked out for this decode, by type.
  @exclusivity(unchecked) var kept: (type: ObjectIdentifier, object: AnyObject?)?

  var codingPath: [any CodingKey] { path.keys }

  func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
    let members = try _JSONUnwrap.members(value, at: { path.keys })
    return KeyedDecodingContainer(_JSONKeyedDecoder(decoder: self, members: members, depth: path.keys.count, extra: []))
  }

  func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
    let elements = try _JSONUnwrap.elements(value, at: { path.keys })
    return _JSONUnkeyedDecoder(decoder: self, elements: elements, depth: path.keys.count, extra: [])
  }

  func singleValueContainer() throws -> any SingleValueDecodingContainer {
    _JSONSingleValueDecoder(decoder: self)
  }

  /// Decodes a member of a container made at `depth` under `extra`.
  @inline(__always)
  func decode<T: Decodable>(
    _ type: T.Type, from member: JSONValue, depth: Int, extra: [any CodingKey], key: any CodingKey
  ) throws -> T {
    try _JSONUnwrap.primitive(T.self, from: member, at: { path.path(depth: depth, extra: extra, appending: key) }) {
      let outer = value
      let saved = path.enter(depth: depth, extra: extra, key: key)
      value = member
      defer {
        value = outer
        path.leave(depth: depth, saved: saved)
      }
      return try T(from: self)
    }
  }

  /// Decodes the value this decoder holds (through a single-value container).
  func decodeHere<T: Decodable>(_ type: T.Type) throws -> T {
    try _JSONUnwrap.primitive(T.self, from: value, at: { path.keys }) { try T(from: self) }
  }
}

// MARK: - Containers

struct _JSONKeyedDecoder<Key: CodingKey>: KeyedDecodingContainerProtocol {
  let decoder: _JSONValueDecoderImpl
  let members: [String: JSONValue]
  let depth: Int
  let extra: [any CodingKey]

  var codingPath: [any CodingKey] { decoder.path.path(depth: depth, extra: extra) }
  var allKeys: [Key] { members.keys.compactMap { Key(stringValue: $0) } }

  func contains(_ key: Key) -> Bool { members[key.stringValue] != nil }

  private func path(_ key: any CodingKey) -> [any CodingKey] {
    decoder.path.path(depth: depth, extra: extra, appending: key)
  }

  private func member(_ key: Key) throws -> JSONValue {
    guard let member = members.member(key.stringValue) else {
      throw DecodingError.keyNotFound(
        key, .init(codingPath: codingPath, debugDescription: "No value associated with key \(key) (\"\(key.stringValue)\")."))
    }
    return member
  }

  /// The member for `key`, or nil when it is missing or null.
  @inline(__always)
  private func presentMember(_ key: Key) -> JSONValue? {
    guard let member = members[key.stringValue] else { return nil }
    if case .null = member { return nil }
    return member
  }

  func decodeNil(forKey key: Key) throws -> Bool {
    if case .null = try member(key) { return true }
    return false
  }

  func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try _JSONUnwrap.bool(member(key), at: { path(key) }) }
  func decode(_ type: String.Type, forKey key: Key) throws -> String { try _JSONUnwrap.string(member(key), at: { path(key) }) }
  func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try _JSONUnwrap.double(member(key), at: { path(key) }) }
  func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try _JSONUnwrap.float(member(key), at: { path(key) }) }
  func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try integer(key) }
  func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try integer(key) }
  func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try integer(key) }
  func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try integer(key) }
  func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try integer(key) }
  func decode(_ type: Int128.Type, forKey key: Key) throws -> Int128 { try integer(key) }
  func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try integer(key) }
  func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try integer(key) }
  func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try integer(key) }
  func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try integer(key) }
  func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try integer(key) }
  func decode(_ type: UInt128.Type, forKey key: Key) throws -> UInt128 { try integer(key) }

  @inline(__always)
  private func integer<I: FixedWidthInteger>(_ key: Key) throws -> I {
    try _JSONUnwrap.integer(member(key), as: I.self, at: { path(key) })
  }

  func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
    try decoder.decode(T.self, from: member(key), depth: depth, extra: extra, key: key)
  }

  func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? {
    try presentMember(key).map { try _JSONUnwrap.bool($0, at: { path(key) }) }
  }

  func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? {
    try presentMember(key).map { try _JSONUnwrap.string($0, at: { path(key) }) }
  }

  func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? {
    try presentMember(key).map { try _JSONUnwrap.double($0, at: { path(key) }) }
  }

  func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? {
    try presentMember(key).map { try _JSONUnwrap.float($0, at: { path(key) }) }
  }

  func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { try integerIfPresent(key) }
  func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? { try integerIfPresent(key) }
  func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? { try integerIfPresent(key) }
  func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? { try integerIfPresent(key) }
  func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? { try integerIfPresent(key) }
  func decodeIfPresent(_ type: Int128.Type, forKey key: Key) throws -> Int128? { try integerIfPresent(key) }
  func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? { try integerIfPresent(key) }
  func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? { try integerIfPresent(key) }
  func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? { try integerIfPresent(key) }
  func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? { try integerIfPresent(key) }
  func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? { try integerIfPresent(key) }
  func decodeIfPresent(_ type: UInt128.Type, forKey key: Key) throws -> UInt128? { try integerIfPresent(key) }

  @inline(__always)
  private func integerIfPresent<I: FixedWidthInteger>(_ key: Key) throws -> I? {
    try presentMember(key).map { try _JSONUnwrap.integer($0, as: I.self, at: { path(key) }) }
  }

  func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
    guard let member = presentMember(key) else { return nil }
    return try decoder.decode(T.self, from: member, depth: depth, extra: extra, key: key)
  }

  func nestedContainer<NestedKey: CodingKey>(
    keyedBy type: NestedKey.Type, forKey key: Key
  ) throws -> KeyedDecodingContainer<NestedKey> {
    let nested = try _JSONUnwrap.members(member(key), at: { path(key) })
    return KeyedDecodingContainer(
      _JSONKeyedDecoder<NestedKey>(decoder: decoder, members: nested, depth: depth, extra: extra + [key]))
  }

  func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
    let nested = try _JSONUnwrap.elements(member(key), at: { path(key) })
    return _JSONUnkeyedDecoder(decoder: decoder, elements: nested, depth: depth, extra: extra + [key])
  }

  /// Like `JSONDecoder`, a missing member gives a decoder holding null.
  func superDecoder() throws -> any Decoder { superDecoder(for: _JSONKey.super) }
  func superDecoder(forKey key: Key) throws -> any Decoder { superDecoder(for: key) }

  private func superDecoder(for key: any CodingKey) -> any Decoder {
    _JSONValueDecoderImpl(value: members[key.stringValue] ?? .null, userInfo: decoder.sendableUserInfo, codingPath: path(key))
  }
}

struct _JSONUnkeyedDecoder: UnkeyedDecodingContainer {
  let decoder: _JSONValueDecoderImpl
  let elements: [JSONValue]
  let depth: Int
  let extra: [any CodingKey]
  private(set) var currentIndex = 0

  init(decoder: _JSONValueDecoderImpl, elements: [JSONValue], depth: Int, extra: [any CodingKey]) {
    self.decoder = decoder
    self.elements = elements
    self.depth = depth
    self.extra = extra
  }

  var codingPath: [any CodingKey] { decoder.path.path(depth: depth, extra: extra) }
  var count: Int? { elements.count }
  var isAtEnd: Bool { currentIndex >= elements.count }

  private var currentPath: [any CodingKey] {
    decoder.path.path(depth: depth, extra: extra, appending: _JSONKey.index(currentIndex))
  }

  /// The next element; `JSONDecoder`'s `valueNotFound` naming `type` when there is none.
  private func next(_ type: Any.Type, _ message: String = "Unkeyed container is at end.") throws -> JSONValue {
    guard currentIndex < elements.count else {
      throw DecodingError.valueNotFound(type, .init(codingPath: currentPath, debugDescription: message))
    }
    return elements[currentIndex]
  }

  mutating func decodeNil() throws -> Bool {
    guard case .null = try next(Never.self) else { return false }
    currentIndex += 1
    return true
  }

  /// Reads the next element with `read` and moves past it only if that succeeds.
  private mutating func advance<T>(_ read: (JSONValue, () -> [any CodingKey]) throws -> T) throws -> T {
    let result = try read(next(T.self), { currentPath })
    currentIndex += 1
    return result
  }

  mutating func decode(_ type: Bool.Type) throws -> Bool { try advance(_JSONUnwrap.bool) }
  mutating func decode(_ type: String.Type) throws -> String { try advance(_JSONUnwrap.string) }
  mutating func decode(_ type: Double.Type) throws -> Double { try advance(_JSONUnwrap.double) }
  mutating func decode(_ type: Float.Type) throws -> Float { try advance(_JSONUnwrap.float) }
  mutating func decode(_ type: Int.Type) throws -> Int { try integer() }
  mutating func decode(_ type: Int8.Type) throws -> Int8 { try integer() }
  mutating func decode(_ type: Int16.Type) throws -> Int16 { try integer() }
  mutating func decode(_ type: Int32.Type) throws -> Int32 { try integer() }
  mutating func decode(_ type: Int64.Type) throws -> Int64 { try integer() }
  mutating func decode(_ type: Int128.Type) throws -> Int128 { try integer() }
  mutating func decode(_ type: UInt.Type) throws -> UInt { try integer() }
  mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try integer() }
  mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try integer() }
  mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try integer() }
  mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try integer() }
  mutating func decode(_ type: UInt128.Type) throws -> UInt128 { try integer() }

  @inline(__always)
  private mutating func integer<I: FixedWidthInteger>() throws -> I {
    try advance { value, path in try _JSONUnwrap.integer(value, as: I.self, at: path) }
  }

  mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
    let element = try next(T.self)
    let result = try decoder.decode(T.self, from: element, depth: depth, extra: extra, key: _JSONKey.index(currentIndex))
    currentIndex += 1
    return result
  }

  mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
    let key = _JSONKey.index(currentIndex)
    let members = try _JSONUnwrap.members(next(KeyedDecodingContainer<NestedKey>.self), at: { currentPath })
    currentIndex += 1
    return KeyedDecodingContainer(
      _JSONKeyedDecoder<NestedKey>(decoder: decoder, members: members, depth: depth, extra: extra + [key]))
  }

  mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
    let key = _JSONKey.index(currentIndex)
    let nested = try _JSONUnwrap.elements(next((any UnkeyedDecodingContainer).self), at: { currentPath })
    currentIndex += 1
    return _JSONUnkeyedDecoder(decoder: decoder, elements: nested, depth: depth, extra: extra + [key])
  }

  mutating func superDecoder() throws -> any Decoder {
    let element = try next((any Decoder).self, "Cannot get superDecoder() -- unkeyed container is at end.")
    let superDecoder = _JSONValueDecoderImpl(value: element, userInfo: decoder.sendableUserInfo, codingPath: currentPath)
    currentIndex += 1
    return superDecoder
  }
}

struct _JSONSingleValueDecoder: SingleValueDecodingContainer {
  let decoder: _JSONValueDecoderImpl

  var codingPath: [any CodingKey] { decoder.path.keys }

  private func read<T>(_ read: (JSONValue, () -> [any CodingKey]) throws -> T) throws -> T {
    try read(decoder.value, { decoder.path.keys })
  }

  func decodeNil() -> Bool {
    if case .null = decoder.value { return true }
    return false
  }

  func decode(_ type: Bool.Type) throws -> Bool { try read(_JSONUnwrap.bool) }
  func decode(_ type: String.Type) throws -> String { try read(_JSONUnwrap.string) }
  func decode(_ type: Double.Type) throws -> Double { try read(_JSONUnwrap.double) }
  func decode(_ type: Float.Type) throws -> Float { try read(_JSONUnwrap.float) }
  func decode(_ type: Int.Type) throws -> Int { try integer() }
  func decode(_ type: Int8.Type) throws -> Int8 { try integer() }
  func decode(_ type: Int16.Type) throws -> Int16 { try integer() }
  func decode(_ type: Int32.Type) throws -> Int32 { try integer() }
  func decode(_ type: Int64.Type) throws -> Int64 { try integer() }
  func decode(_ type: Int128.Type) throws -> Int128 { try integer() }
  func decode(_ type: UInt.Type) throws -> UInt { try integer() }
  func decode(_ type: UInt8.Type) throws -> UInt8 { try integer() }
  func decode(_ type: UInt16.Type) throws -> UInt16 { try integer() }
  func decode(_ type: UInt32.Type) throws -> UInt32 { try integer() }
  func decode(_ type: UInt64.Type) throws -> UInt64 { try integer() }
  func decode(_ type: UInt128.Type) throws -> UInt128 { try integer() }

  @inline(__always)
  private func integer<I: FixedWidthInteger>() throws -> I {
    try read { value, path in try _JSONUnwrap.integer(value, as: I.self, at: path) }
  }

  func decode<T: Decodable>(_ type: T.Type) throws -> T { try decoder.decodeHere(T.self) }
}
