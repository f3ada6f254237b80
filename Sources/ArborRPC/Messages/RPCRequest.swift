import ArborJSON

/// A JSON-RPC 2.0 request, or a notification when it has no `id`.
///
/// ```swift
/// let request = RPCRequest(method: "state.get", params: ["path": "/counters"], id: 1)
/// print(request.json.jsonString)   // {"id":1,"jsonrpc":"2.0","method":"state.get","params":{"path":"/counters"}}
/// ```
public struct RPCRequest: Sendable, Hashable {
  public var method: String
  /// An object (parameters by name) or an array (by position), or nil when absent.
  public var params: JSONValue?
  /// Nil for a notification, which is never answered.
  public var id: RPCID?

  public init(method: String, params: JSONValue? = nil, id: RPCID?) {
    self.method = method
    self.params = params
    self.id = id
  }

  /// A notification: a request without an id.
  public static func notification(_ method: String, params: JSONValue? = nil) -> RPCRequest {
    RPCRequest(method: method, params: params, id: nil)
  }

  public var isNotification: Bool { id == nil }

  /// The request as a JSON-RPC 2.0 message.
  public var json: JSONValue {
    var members: [String: JSONValue] = ["jsonrpc": "2.0", "method": .string(method)]
    if let params { members["params"] = params }
    if let id { members["id"] = id.json }
    return .object(members)
  }

  /// Reads a request as the specification defines it. The error is the reply to send:
  /// `Invalid Request`, with the request's id when it could be read (else `null`).
  public init(validating value: JSONValue) throws(RPCResponse) {
    guard case .object(let members) = value else {
      throw RPCResponse(id: .null, error: .invalidRequest("a request must be a JSON object, not \(value.typeName)"))
    }
    var id: RPCID?
    if let rawID = members["id"] {
      guard let parsed = RPCID(rawID) else {
        throw RPCResponse(id: .null, error: .invalidRequest("'id' must be a string, a number or null, not \(rawID.typeName)"))
      }
      id = parsed
    }
    let replyID = id ?? .null
    guard members["jsonrpc"] == .string("2.0") else {
      throw RPCResponse(id: replyID, error: .invalidRequest(#"'jsonrpc' must be "2.0""#))
    }
    guard case .string(let method)? = members["method"] else {
      let found = members["method"].map { "a \($0.typeName)" } ?? "missing"
      throw RPCResponse(id: replyID, error: .invalidRequest("'method' must be a string (it is \(found))"))
    }
    let params = members["params"]
    switch params {
    case nil, .object?, .array?: break
    case let other?:
      throw RPCResponse(id: replyID, error: .invalidRequest("'params' must be an object or an array, not \(other.typeName)"))
    }
    // Checked without allocating; sorted only to name the same member every time.
    func isKnown(_ key: String) -> Bool {
      switch key {
      case "jsonrpc", "method", "params", "id": return true
      default: return false
      }
    }
    if members.keys.contains(where: { !isKnown($0) }), let extra = members.keys.sorted().first(where: { !isKnown($0) }) {
      throw RPCResponse(id: replyID, error: .invalidRequest("unknown member '\(extra)'"))
    }
    self.init(method: method, params: params, id: id)
  }
}

extension RPCRequest {
  private static let envelopeNames = JSONMemberNames(["jsonrpc", "method", "params", "id"])

  /// Reads a line that is a valid single request, as most are, without building its
  /// envelope's dictionary; nil for anything else (a batch, an invalid request, invalid
  /// JSON, a number id that is not an integer), which ``RPCInbound`` reads the general way
  /// and so answers with the same errors.
  init?(validRequestLine line: [UInt8], maxDepth: Int) {
    var version: JSONValue?
    var method: JSONValue?
    var params: JSONValue?
    var id: JSONValue?
    let read = JSONValue.readKnownMembers(of: line, names: Self.envelopeNames, maxDepth: maxDepth) { name, value in
      switch name {
      case 0: version = value
      case 1: method = value
      case 2: params = value
      default: id = value
      }
    }
    guard read, case .string("2.0")? = version, case .string(let name)? = method else { return nil }
    switch params {
    case nil, .object?, .array?: break
    default: return nil
    }
    var requestID: RPCID?
    if let id {
      switch id {
      case .int(let number): requestID = .number(number)
      case .string(let text): requestID = .string(text)
      case .null: requestID = .null
      default: return nil
      }
    }
    self.init(method: name, params: params, id: requestID)
  }
}
