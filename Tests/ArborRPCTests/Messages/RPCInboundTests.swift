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
    #expect(read.error?.is(.targetNotFound) == true)
  }

  @Test func aReplyIsWrittenAsItsObjectWouldBe() throws {
    // Written member by member; it must be what writing its object gives, byte for byte.
    let error = RPCError(code: -32000, name: "org.arbor.Example", message: "a \"quoted\" reason", details: ["at": "/rows/0"])
    for id in [RPCID.number(7), .number(-1), .string("a\"b\\c"), .string(""), .null, .numberText("18446744073709551617")] {
      for response in [RPCResponse(id: id, result: ["revision": 3, "result": nil]), RPCResponse(id: id, result: []), RPCResponse(id: id, error: error)] {
        var direct: [UInt8] = []
        response.writeJSON(to: &direct)
        if case .numberText = id {
          // The id's digits as the request wrote them (its object would hold a Double).
          let text = String(decoding: direct, as: UTF8.self)
          #expect(text.hasPrefix(#"{"id":18446744073709551617,"jsonrpc":"2.0","result":"#) || text.hasSuffix(#","id":18446744073709551617,"jsonrpc":"2.0"}"#), "\(text)")
        } else {
          #expect(direct == Array(response.json.jsonLine.dropLast()), "\(String(decoding: direct, as: UTF8.self))")
        }
        #expect(response.jsonLine == direct + [0x0A])
      }
    }
  }
}

/// Ids that `Int64` cannot hold keep the digits the request wrote.
@Suite struct RPCExactIDTests {
  @Test func aBigIntegerIDIsKeptAsItsTextAndWrittenBack() throws {
    let line = Array(#"{"jsonrpc":"2.0","id": 1208925819614629174706177 ,"method":"m"}"#.utf8)
    guard case .single(.request(let request)) = RPCInbound(line: line) else {
      Issue.record("not read as a request"); return
    }
    #expect(request.id == .numberText("1208925819614629174706177"))
    let reply = RPCResponse(id: try #require(request.id), result: ["a": 1])
    #expect(String(decoding: reply.jsonLine, as: UTF8.self) == #"{"id":1208925819614629174706177,"jsonrpc":"2.0","result":{"a":1}}"# + "\n")
    let error = RPCResponse(id: try #require(request.id), error: .methodNotFound("m", available: []))
    let text = String(decoding: error.jsonLine, as: UTF8.self)
    #expect(text.hasPrefix(#"{"error":{"#) && text.hasSuffix(#","id":1208925819614629174706177,"jsonrpc":"2.0"}"# + "\n"), "\(text)")
    // What the writer writes parses back as the same value the generic path gives.
    #expect(try JSONValue(parsing: error.jsonLine.dropLast()) == error.json)
  }

  @Test func inABatchEachMemberKeepsItsOwnID() throws {
    let line = Array(#"[{"jsonrpc":"2.0","id":1,"method":"a"}, 5, {"jsonrpc":"2.0","id":-18446744073709551617,"method":"b"}, {"jsonrpc":"2.0","id":2.5,"method":"c","params":{"id":1e300}}]"#.utf8)
    guard case .batch(let calls) = RPCInbound(line: line) else { Issue.record("not a batch"); return }
    let ids: [RPCID?] = calls.map {
      switch $0 {
      case .request(let request): return request.id
      case .invalid(let reply): return reply.id
      }
    }
    #expect(ids == [.number(1), .null, .numberText("-18446744073709551617"), .numberText("2.5")])
  }

  @Test func numberTextsOfAMemberAreReadWithoutTheRest() {
    #expect(JSONValue.numberTexts(ofMember: "id", in: Array(#"{"x":{"id":3},"id":1.000}"#.utf8)) == ["1.000"])
    #expect(JSONValue.numberTexts(ofMember: "id", in: Array(#"[{"id":"a"},[],{"id":2e5}]"#.utf8)) == [nil, nil, "2e5"])
  }
}
