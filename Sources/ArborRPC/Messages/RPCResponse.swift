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

  /// The response as one line of JSON (with its newline), the id exactly as the request
  /// wrote it.
  ///
  /// ```swift
  /// RPCResponse(id: .numberText("18446744073709551617"), result: 1).jsonLine   // {"id":18446744073709551617,"jsonrpc":"2.0","result":1}\n
  /// ```
  public var jsonLine: [UInt8] {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(128)
    writeJSON(to: &bytes)
    bytes.append(0x0A)
    return bytes
  }

  /// Writes the response as compact JSON, the id exactly as the request wrote it.
  public func writeJSON(to bytes: inout [UInt8]) {
    // Written directly, with the members in the order the writer sorts them (error, id,
    // jsonrpc, result): no object is built for every reply.
    switch outcome {
    case .success(let result):
      bytes.append(contentsOf: #"{"id":"#.utf8)
      id.writeJSON(to: &bytes)
      bytes.append(contentsOf: #","jsonrpc":"2.0","result":"#.utf8)
      result.writeJSON(to: &bytes)
    case .failure(let error):
      bytes.append(contentsOf: #"{"error":"#.utf8)
      error.json.writeJSON(to: &bytes)
      bytes.append(contentsOf: #","id":"#.utf8)
      id.writeJSON(to: &bytes)
      bytes.append(contentsOf: #","jsonrpc":"2.0""#.utf8)
    }
    bytes.append(UInt8(ascii: "}"))
  }

  /// The replies to a batch as one line: a JSON array of them.
  /// A successful reply's line, its result written by `writeResult` (compact JSON, keys
  /// sorted, as ``writeJSON(to:)`` would write it): for results that can write themselves
  /// without being built as a ``JSONValue`` first.
  ///
  /// ```swift
  /// let line = RPCResponse.successLine(id: 1) { JSONValue.int(3).writeJSON(to: &$0) }   // {"id":1,"jsonrpc":"2.0","result":3}\n
  /// ```
  public static func successLine(id: RPCID, writeResult: (inout [UInt8]) -> Void) -> [UInt8] {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(128)
    bytes.append(contentsOf: #"{"id":"#.utf8)
    id.writeJSON(to: &bytes)
    bytes.append(contentsOf: #","jsonrpc":"2.0","result":"#.utf8)
    writeResult(&bytes)
    bytes.append(UInt8(ascii: "}"))
    bytes.append(0x0A)
    return bytes
  }

  public static func batchLine(_ responses: [RPCResponse]) -> [UInt8] {
    var bytes: [UInt8] = [UInt8(ascii: "[")]
    for (index, response) in responses.enumerated() {
      if index > 0 { bytes.append(UInt8(ascii: ",")) }
      response.writeJSON(to: &bytes)
    }
    bytes.append(contentsOf: [UInt8(ascii: "]"), 0x0A])
    return bytes
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
