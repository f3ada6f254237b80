import ArborJSON
import ArborRPC
import Testing

/// The examples of the JSON-RPC 2.0 specification (section 7), as a server reads them.
@Suite struct RPCInboundTests {
  func read(_ text: String) -> RPCInbound { RPCInbound(line: Array(text.utf8)) }

  func invalidReply(_ inbound: RPCInbound) -> RPCResponse? {
    if case .single(.invalid(let reply)) = inbound { return reply }
    return nil
  }

  @Test func aRequestWithPositionalAndNamedParams() throws {
    guard case .single(.request(let request)) = read(#"{"jsonrpc": "2.0", "method": "subtract", "params": [42, 23], "id": 1}"#) else {
      Issue.record("not read as a request"); return
    }
    #expect(request.method == "subtract")
    #expect(request.params == [42, 23])
    #expect(request.id == 1)
    guard case .single(.request(let named)) = read(#"{"jsonrpc": "2.0", "method": "subtract", "params": {"subtrahend": 23, "minuend": 42}, "id": "a"}"#) else {
      Issue.record("not read as a request"); return
    }
    #expect(named.params == ["subtrahend": 23, "minuend": 42])
    #expect(named.id == "a")
  }

  @Test func aNotificationHasNoID() {
    guard case .single(.request(let request)) = read(#"{"jsonrpc": "2.0", "method": "update", "params": [1,2,3,4,5]}"#) else {
      Issue.record("not read as a request"); return
    }
    #expect(request.isNotification)
  }

  @Test func invalidJSONIsAParseErrorWithANullID() throws {
    let reply = try #require(invalidReply(read(#"{"jsonrpc": "2.0", "method": "foobar, "params": "bar", "baz]"#)))
    #expect(reply.id == .null)
    #expect(reply.error?.code == -32700)
    #expect(reply.json.jsonString.hasPrefix(#"{"error":{"code":-32700,"message":"Parse error: at byte"#))
  }

  @Test func invalidUTF8IsAParseError() throws {
    let reply = try #require(invalidReply(RPCInbound(line: [0x22, 0xFF, 0xFE, 0x22])))
    #expect(reply.error?.code == -32700)
    #expect(reply.error?.message.contains("UTF-8") == true)
  }

  @Test func aRequestObjectOfTheWrongShapeIsAnInvalidRequest() throws {
    let wrongMethodType = try #require(invalidReply(read(#"{"jsonrpc": "2.0", "method": 1, "params": "bar"}"#)))
    #expect(wrongMethodType.error?.code == -32600)
    #expect(wrongMethodType.id == .null)
    let noVersion = try #require(invalidReply(read(#"{"method": "a", "id": 4}"#)))
    #expect(noVersion.error?.code == -32600)
    #expect(noVersion.id == 4, "the id is echoed when it could be read")
    let badParams = try #require(invalidReply(read(#"{"jsonrpc": "2.0", "method": "a", "params": 3, "id": 5}"#)))
    #expect(badParams.error?.message.contains("'params' must be an object or an array") == true)
    let badID = try #require(invalidReply(read(#"{"jsonrpc": "2.0", "method": "a", "id": {"x": 1}}"#)))
    #expect(badID.id == .null)
  }

  @Test func anEmptyBatchIsOneInvalidRequest() throws {
    let reply = try #require(invalidReply(read("[]")))
    #expect(reply.error?.code == -32600)
  }

  @Test func aBatchOfInvalidMembersAnswersEach() {
    guard case .batch(let calls) = read("[1,2,3]") else { Issue.record("not read as a batch"); return }
    #expect(calls.count == 3)
    for call in calls {
      guard case .invalid(let reply) = call else { Issue.record("member read as valid"); continue }
      #expect(reply.error?.code == -32600)
    }
  }

  @Test func aMixedBatchKeepsItsOrder() {
    let text = """
      [{"jsonrpc": "2.0", "method": "sum", "params": [1,2,4], "id": "1"},
       {"jsonrpc": "2.0", "method": "notify_hello", "params": [7]},
       {"foo": "boo"},
       {"jsonrpc": "2.0", "method": "get_data", "id": "9"}]
      """
    guard case .batch(let calls) = read(text) else { Issue.record("not read as a batch"); return }
    #expect(calls.count == 4)
    guard case .request(let first) = calls[0], case .request(let second) = calls[1],
      case .invalid = calls[2], case .request(let fourth) = calls[3]
    else { Issue.record("members misread: \(calls)"); return }
    #expect(first.id == "1")
    #expect(second.isNotification)
    #expect(fourth.method == "get_data")
  }

  @Test func responsesRoundTrip() throws {
    let success = RPCResponse(id: 7, result: ["revision": 3])
    #expect(RPCResponse(success.json) == success)
    let failure = RPCResponse(
      id: "x", error: RPCError(code: -32001, name: "org.arbor.TargetNotFound", message: "no model at '/x'"))
    let read = try #require(RPCResponse(failure.json))
    #expect(read == failure)
    #expect(read.error?.name == "org.arbor.TargetNotFound")
  }
}
