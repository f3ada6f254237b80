import ArborJSON

/// The JSON parameters of one intent call; generated dispatch code reads each parameter
/// with ``value(_:_:)`` and wraps the result with ``result(_:)``.
public struct _IntentArguments: Sendable {
  let intent: String
  let values: [String: JSONValue]

  /// A parameter without a default: required, except that an optional one may be absent.
  public func value<T: Decodable>(_ key: String, _ type: T.Type) throws -> T {
    guard let value = values[key] else {
      if let absent = try? JSONValueDecoder().decode(T.self, from: .null) { return absent }
      throw IntentError.missingParameter(intent: intent, parameter: key)
    }
    return try decode(value, key)
  }

  /// A parameter with a default: the default when absent.
  public func value<T: Decodable>(_ key: String, _ type: T.Type, default makeDefault: () -> T) throws -> T {
    guard let value = values[key] else { return makeDefault() }
    return try decode(value, key)
  }

  @available(*, unavailable, message: "the parameters of an @Intent must be Codable: they are decoded from JSON")
  public func value<T>(_ key: String, _ type: T.Type) throws -> T { fatalError() }

  @available(*, unavailable, message: "the parameters of an @Intent must be Codable: they are decoded from JSON")
  public func value<T>(_ key: String, _ type: T.Type, default makeDefault: () -> T) throws -> T { fatalError() }

  private func decode<T: Decodable>(_ value: JSONValue, _ key: String) throws -> T {
    do {
      return try JSONValueDecoder().decode(T.self, from: value)
    } catch let error as DecodingError {
      let (path, reason) = error.location
      let tokens = error.codingKeys.map(\.pointerToken)
      throw IntentError.invalidParameter(
        intent: intent, parameter: key + path, reason: Self.notAllowed(T.self, value, at: tokens) ?? reason)
    }
  }

  /// `"fan" is not one of "off", "heat", "cool"`, when the schema of `T` lists the values
  /// allowed at `tokens` (an enum with raw values, for example).
  static func notAllowed<T>(_ type: T.Type, _ value: JSONValue, at tokens: [String]) -> String? {
    var definitions = JSONSchemaDefinitions()
    let schema = definitions.schema(for: T.self)
    guard let allowed = schema.allowedValues(at: tokens, definitions: definitions.definitions), !allowed.isEmpty
    else { return nil }
    let list = allowed.map(\.jsonString).joined(separator: ", ")
    guard let given = try? JSONPointer(tokens: tokens).resolve(in: value) else { return "it must be one of \(list)" }
    return "\(given.jsonString) is not one of \(list)"
  }

  /// A `Codable` result, as JSON.
  public func result<T: Encodable>(_ value: T) throws -> JSONValue {
    do {
      return try JSONValueEncoder().encode(value)
    } catch {
      throw IntentError.resultNotEncodable(intent: intent, reason: "\(error)")
    }
  }

  /// No result: `null`.
  public func result(_ value: Void) throws -> JSONValue { .null }

  @available(*, unavailable, message: "the result of an @Intent must be Codable (or Void): it is encoded as JSON")
  public func result<T>(_ value: T) throws -> JSONValue { fatalError() }
}
