import ArborJSON

/// The `id` of a JSON-RPC 2.0 request: a string, a number, or `null`. The reply echoes it.
///
/// ```swift
/// let id: RPCID = 7
/// print(id.json)   // .int(7)
/// ```
public enum RPCID: Sendable, Hashable, CustomStringConvertible, ExpressibleByIntegerLiteral, ExpressibleByStringLiteral {
  case number(Int64)
  /// A fractional number as id: the spec discourages it; kept so that it is echoed as sent.
  case fractional(Double)
  case string(String)
  case null

  public init(integerLiteral value: Int64) { self = .number(value) }
  public init(stringLiteral value: String) { self = .string(value) }

  /// The id read from a request's `id` member, or nil when its type is not allowed.
  public init?(_ value: JSONValue) {
    switch value {
    case .int(let number): self = .number(number)
    case .double(let number): self = .fractional(number)
    case .string(let text): self = .string(text)
    case .null: self = .null
    case .bool, .array, .object: return nil
    }
  }

  /// The id as a JSON value, as it is written in a reply.
  public var json: JSONValue {
    switch self {
    case .number(let number): return .int(number)
    case .fractional(let number): return .double(number)
    case .string(let text): return .string(text)
    case .null: return .null
    }
  }

  public var description: String {
    switch self {
    case .number(let number): return String(number)
    case .fractional(let number): return String(number)
    case .string(let text): return "\"\(text)\""
    case .null: return "null"
    }
  }
}
