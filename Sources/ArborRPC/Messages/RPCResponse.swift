import ArborJSON

/// A JSON-RPC 2.0 response: the request's id with either a result or an error.
///
/// ```swift
/// let reply = RPCResponse(id: 1, result: ["revision": 3, "value": 7])
/// print(reply.json.jsonString)   // {"id":1,"jsonrpc":"2.0","result":{"revision":3,"value":7}}
/// ```
public struct RPCResponse: Error, Sendable, Hashable {
  public var id: RPCID
  public var outcome: Result<JSONValue, RPCError>

  public init(id: RPCID, result: JSONValue) {
    self.id = id
    self.outcome = .success(result)
  }

  public init(id: RPCID, error: RPCError) {
    self.id = id
    self.outcome = .failure(error)
  }

  public var result: JSONValue? {
    if case .success(let value) = outcome { return value }
    return nil
  }

  public var error: RPCError? {
    if case .failure(let error) = outcome { return error }
    return nil
  }

  /// The response as a JSON-RPC 2.0 message.
  public var json: JSONValue {
    switch outcome {
    case .success(let result): return ["jsonrpc": "2.0", "id": id.json, "result": result]
    case .failure(let error): return ["jsonrpc": "2.0", "id": id.json, "error": error.json]
    }
  }

  /// Reads a response; nil when the value is not one.
  public init?(_ value: JSONValue) {
    guard case .object(let members) = value, members["jsonrpc"] == .string("2.0"),
      let rawID = members["id"], let id = RPCID(rawID)
    else { return nil }
    if let result = members["result"], members["error"] == nil {
      self.init(id: id, result: result)
    } else if let rawError = members["error"], members["result"] == nil, let error = RPCError(rawError) {
      self.init(id: id, error: error)
    } else {
      return nil
    }
  }
}
