import ArborJSON

/// The `id` of a JSON-RPC 2.0 request: a string, a number, or `null`. The reply echoes it.
///
/// ```swift
/// let id: RPCID = 7
/// print(id.json)   // .int(7)
/// ```
public enum RPCID: Sendable, Hashable, CustomStringConvertible, ExpressibleByIntegerLiteral, ExpressibleByStringLiteral {
  case number(Int64)
  /// A fractional number as id: the spec discourages it.
  case fractional(Double)
  /// A number that `Int64` cannot hold (`18446744073709551617`, `1.50`), as the request
  /// wrote it: a reply echoes these digits exactly (``RPCResponse/jsonLine``).
  case numberText(String)
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

  /// The id as a JSON value (a ``numberText(_:)`` as the nearest `Double`; write replies
  /// with ``RPCResponse/jsonLine`` to keep its digits).
  public var json: JSONValue {
    switch self {
    case .number(let number): return .int(number)
    case .fractional(let number): return .double(number)
    case .numberText(let text): return .double(Double(text) ?? .nan)
    case .string(let text): return .string(text)
    case .null: return .null
    }
  }

  /// Writes the id as a reply carries it: a ``numberText(_:)`` as its exact digits.
  public func writeJSON(to bytes: inout [UInt8]) {
    if case .numberText(let text) = self {
      bytes.append(contentsOf: text.utf8)
    } else {
      json.writeJSON(to: &bytes)
    }
  }

  public var description: String {
    switch self {
    case .number(let number): return String(number)
    case .fractional(let number): return String(number)
    case .numberText(let text): return text
    case .string(let text): return "\"\(text)\""
    case .null: return "null"
    }
  }
}
