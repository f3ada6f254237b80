import ArborJSON
import ArborRPC
import Testing

/// A single valid request is read without building its envelope's dictionary; anything
/// else goes the general way. Either way, a line must read exactly as the general reader
/// reads its parsed value: the same request, or the same error reply.
@Suite struct RPCRequestLineTests {
  /// What the general path makes of a line: parse, then sort into calls.
  func generalRead(_ line: [UInt8]) -> RPCInbound {
    do {
      let value = try JSONValue(parsing: line)
      let inbound = RPCInbound(value)
      // A fractional id keeps its text: the general path's own fix-up, applied alike.
      if case .single(.request(let request)) = inbound, case .fractional? = request.id { return RPCInbound(line: line) }
      return inbound
    } catch {
      return .single(.invalid(RPCResponse(id: .null, error: .parseError(error.description))))
    }
  }

  static let lines: [String] = [
    #"{"jsonrpc":"2.0","id":1,"method":"intent.call","params":{"target":"/counters/0/counter","intent":"incrementTapped"}}"#,
    #"{"jsonrpc":"2.0","method":"state.get"}"#,
    #"{"jsonrpc":"2.0","method":"state.get","id":null}"#,
    #"{"jsonrpc":"2.0","method":"state.get","id":"abc"}"#,
    #"{"jsonrpc":"2.0","method":"state.get","id":-9223372036854775808}"#,
    #"  { "id" : 7 , "params" : [1, 2] , "method" : "m" , "jsonrpc" : "2.0" }  "#,
    #"{"jsonrpc":"2.0","method":"m","params":{}}"#,
    // Not valid: each must give the general path's error.
    #"{"jsonrpc":"2.0","method":"m","id":1.5}"#,
    #"{"jsonrpc":"2.0","method":"m","id":18446744073709551617}"#,
    #"{"jsonrpc":"2.0","method":"m","id":true}"#,
    #"{"jsonrpc":"2.0","method":"m","id":[1]}"#,
    #"{"jsonrpc":"1.0","method":"m","id":1}"#,
    #"{"jsonrpc":2.0,"method":"m","id":1}"#,
    #"{"method":"m","id":1}"#,
    #"{"jsonrpc":"2.0","id":1}"#,
    #"{"jsonrpc":"2.0","method":7,"id":1}"#,
    #"{"jsonrpc":"2.0","method":"m","params":"p","id":1}"#,
    #"{"jsonrpc":"2.0","method":"m","params":null,"id":1}"#,
    #"{"jsonrpc":"2.0","method":"m","id":1,"extra":true}"#,
    #"{"jsonrpc":"2.0","method":"m","id":1,"id":2}"#,
    #"{"jsonrpc":"2.0","method":"a","method":"b","id":1}"#,
    #"{"json\u0072pc":"2.0","method":"m","id":1}"#,
    #"{"jsonrpc":"2.0","method":"m","id":1}x"#,
    #"{"jsonrpc":"2.0","method":"m","id":1"#,
    #"{"jsonrpc":"2.0","method":"m","id":1,}"#,
    #"{"jsonrpc":"2.0","method":"m","params":{"a":[1,}}"#,
    #"{"jsonrpc":"2.0","method":"m","params":[[[[1]]]],"id":1}"#,
    #"{}"#,
    #"[]"#,
    #"[{"jsonrpc":"2.0","method":"m","id":1},{"jsonrpc":"2.0","method":"n"}]"#,
    #""just a string""#,
    #"{"jsonrpc":"2.0","méthode":"m","id":1}"#,
    #"{"":"2.0","method":"m","id":1}"#,
    "",
  ]

  @Test(arguments: lines)
  func aLineReadsAsItsParsedValueDoes(_ text: String) {
    let line = Array(text.utf8)
    #expect(RPCInbound(line: line) == generalRead(line), "\(text)")
  }

  @Test func aDepthLimitStillHoldsForAValidRequest() {
    let line = Array(#"{"jsonrpc":"2.0","method":"m","params":[[[1]]],"id":1}"#.utf8)
    guard case .single(.invalid(let reply)) = RPCInbound(line: line, maxDepth: 3) else {
      Issue.record("a request nested past the limit was read"); return
    }
    #expect(reply.error?.code == RPCError.parseError("").code)
    guard case .single(.request) = RPCInbound(line: line, maxDepth: 4) else {
      Issue.record("a request within the limit was refused"); return
    }
  }
}
