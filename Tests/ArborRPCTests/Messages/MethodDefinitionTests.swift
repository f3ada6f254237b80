import ArborJSON
import ArborRPC
import Testing

/// Every method and notification of the protocol has its Codable types in `ArborRPC`, and
/// those types write exactly what the wire carries: explicit `null`s where the daemon
/// always sends a member, absent members where it leaves them out.
@Suite struct MethodDefinitionTests {
  /// The names of the properties of `Definition.Params`, as schema inference sees them.
  static func parameterNames<Definition: ArborMethodDefinition>(_ definition: Definition.Type) -> Set<String> {
    var definitions = JSONSchemaDefinitions()
    var schema = definitions.schema(for: Definition.Params.self).value
    if case .string(let reference)? = schema["$ref"], reference.hasPrefix("#/$defs/") {
      schema = definitions.definitions[String(reference.dropFirst("#/$defs/".count))]?.value ?? .null
    }
    return Set((schema["properties"]?.objectValue ?? [:]).keys)
  }

  @Test(arguments: ArborMethod.allCases)
  func everyMethodHasItsTypesAndTheirParametersAreTheOnesItAccepts(_ method: ArborMethod) {
    #expect(method.definition.method == method)
    #expect(!method.definition.summary.isEmpty)
    #expect(Self.parameterNames(method.definition) == Set(method.parameters), "\(method.rawValue)'s Params type and ArborMethod.parameters differ")
    for note in method.definition.parameterNotes.keys {
      #expect(method.parameters.contains(note), "\(method.rawValue) notes a parameter '\(note)' it does not take")
    }
  }

  /// The accepted names are read from the `Params` types, in their order.
  @Test func theAcceptedParametersAreTheParamsTypesMembersInOrder() {
    #expect(ArborMethod.intentCall.parameters == ["target", "intent", "params", "wait"])
    #expect(ArborMethod.stateWatch.parameters == ["path", "since"])
    #expect(ArborMethod.historyChanges.parameters == ["since", "limit"])
    #expect(ArborMethod.status.parameters.isEmpty)
  }

  @Test(arguments: ArborNotification.allCases)
  func everyNotificationHasItsType(_ notification: ArborNotification) {
    #expect(notification.definition.notification == notification)
  }

  /// Decodes `json` as `T`, encodes it again, and returns both texts.
  static func roundTrip<T: Codable>(_ type: T.Type, _ json: String) throws -> (String, String) {
    let value = try JSONValue(parsing: Array(json.utf8))
    let typed = try JSONValueDecoder().decode(type, from: value)
    return (value.jsonString, try JSONValueEncoder().encode(typed).jsonString)
  }

  static func roundTrip<Definition: ArborNotificationDefinition>(notification: Definition.Type, _ json: String) throws -> (String, String) {
    try roundTrip(Definition.Params.self, json)
  }

  /// The intent reply the daemon builds by hand (its hot path) is what the encoder writes.
  @Test func anIntentCallsResultBuiltByHandIsWhatTheEncoderWrites() throws {
    for result in [
      IntentCall.Result(revision: 7, result: nil), IntentCall.Result(revision: 7, result: ["a": [1, "b"]]),
      IntentCall.Result(revision: 9, result: 42, firstRevision: 5, commits: 3),
    ] {
      #expect(result.jsonValue == (try JSONValueEncoder().encode(result)), "\(result)")
    }
  }

  /// Found while writing the request fuzz target (Fuzz/Sources/request), whose check this
  /// reply fails when replayed: a revision beyond `Int64` (1e19) decodes, and building or
  /// writing its JSON trapped. It is the nearest `Double`
  /// now, as parsing those digits gives.
  @Test func anIntentsResultBeyondInt64IsWrittenNotTrapped() throws {
    let line = Array(#"{"id":1,"jsonrpc":"2.0","result":{"firstRevision":1e19,"result":null,"revision":12000000000000000000}}"#.utf8)
    let reply = try #require(RPCResponse(try JSONValue(parsing: line)))
    let result = try JSONValueDecoder().decode(IntentCall.Result.self, from: try #require(reply.result))
    #expect(result.revision == 12_000_000_000_000_000_000)
    #expect(result.jsonValue == ["firstRevision": 1e19, "result": nil, "revision": 1.2e19])
    var written: [UInt8] = []
    result.writeJSON(to: &written)
    #expect(try JSONValue(parsing: written) == result.jsonValue)
  }

  /// The intent reply line written without building its object is, byte for byte, the line
  /// of the reply built from the object.
  @Test func anIntentsReplyLineWrittenDirectlyIsTheLineOfItsObject() throws {
    let results = [
      IntentCall.Result(revision: 0, result: nil), IntentCall.Result(revision: 7, result: ["b": [1, "x\"y"], "a": 2.5]),
      IntentCall.Result(revision: 9, result: "é\n", firstRevision: 5, commits: 3), IntentCall.Result(revision: 1, result: 1, commits: 2),
      IntentCall.Result(revision: UInt64(Int64.max), result: [], firstRevision: 1),
    ]
    let ids: [RPCID] = [1, -5, "a\"b", .null, .numberText("18446744073709551617")]
    for result in results {
      for id in ids {
        let direct = RPCResponse.successLine(id: id) { result.writeJSON(to: &$0) }
        #expect(direct == RPCResponse(id: id, result: result.jsonValue).jsonLine, "\(result), id \(id)")
      }
    }
  }

  /// The watch replies and the `events.emitted` params the daemon builds by hand are what
  /// the encoder writes.
  @Test func watchRepliesAndEventParamsBuiltByHandAreWhatTheEncoderWrites() throws {
    for result in [
      StateWatchMethod.Result(subscription: 1, revision: 3, value: ["a": [1, "b"]]),
      StateWatchMethod.Result(subscription: 2, revision: 0, value: .null), StateWatchMethod.Result(subscription: 3, revision: 9),
    ] {
      #expect(result.jsonValue == (try JSONValueEncoder().encode(result)), "\(result)")
    }
    let watch = EventsWatch.Result(subscription: 4)
    #expect(watch.jsonValue == (try JSONValueEncoder().encode(watch)))
    for params in [
      EventsEmitted.Params(
        subscription: 2, revision: 5, type: "CounterRowModel.Event", event: ["removeTapped": [:]],
        source: .init(id: "72c769dae94f5355", path: "/counters/1", type: "CounterRowModel")),
      EventsEmitted.Params(subscription: 7, revision: 0, type: "T.Event", event: .null, source: .init(id: "", path: "", type: "T")),
    ] {
      #expect(params.jsonValue == (try JSONValueEncoder().encode(params)), "\(params)")
      #expect(params.source.jsonValue == (try JSONValueEncoder().encode(params.source)))
    }
  }

  /// A resync of a watched path that is gone carries `"value":null` and `"exists":false`.
  @Test func aResyncOfAPathThatIsGoneWritesItsValueAsNull() throws {
    let params = StateChanged.Params(subscription: 1, revision: 9, value: .null, resync: true, exists: false)
    #expect(try JSONValueEncoder().encode(params) == ["subscription": 1, "revision": 9, "value": .null, "resync": true, "exists": false])
  }

  @Test func membersTheDaemonAlwaysSendsAreWrittenAsNull() throws {
    let journal = DaemonStatus.Journal(
      file: "/s", fsync: "batch", bytes: 1, writtenRevision: 2, transactions: 3, lag: 0, snapshotRevision: 0, snapshotsSaved: 1,
      oldestRevision: nil, writes: "accepted")
    let status = DaemonStatus.Result(
      name: "d", version: "0.1.0", protocol: 1, pid: 9, root: "App", uptime: 1.5, revision: 2, clients: 1, subscriptions: 0,
      intentsPerSecond: 0, intentsInFlight: 0, journal: journal, undo: nil)
    let json = try JSONValueEncoder().encode(status)
    #expect(json["undo"] == .null)
    #expect(json["journal"]?["oldestRevision"] == .null)
    #expect(json["journal"]?.objectValue?["refusal"] == nil && json["journal"]?.objectValue?["error"] == nil)

    let change = try JSONValueEncoder().encode(HistoryChanges.Change(revision: 1, time: "t", intent: nil, target: nil, patch: []))
    #expect(change == ["revision": 1, "time": "t", "intent": nil, "target": nil, "patch": []])
    let page = try JSONValueEncoder().encode(HistoryChanges.Result(changes: [], oldest: 0, revision: 1, next: nil))
    #expect(page == ["changes": [], "oldest": 0, "revision": 1, "next": nil])

    let call = try JSONValueEncoder().encode(IntentCall.Result(revision: 3, result: nil))
    #expect(call == ["revision": 3, "result": nil], "firstRevision and commits only when there are several commits")
  }

  @Test func aValueThatIsNullDiffersFromAValueThatIsAbsent() throws {
    let absent = try JSONValueDecoder().decode(StateWatchMethod.Result.self, from: ["subscription": 1, "revision": 4])
    let null = try JSONValueDecoder().decode(StateWatchMethod.Result.self, from: ["subscription": 1, "revision": 4, "value": nil])
    #expect(absent.value == nil)
    #expect(null.value == .some(.null))
    #expect(try JSONValueEncoder().encode(absent) == ["subscription": 1, "revision": 4])
    #expect(try JSONValueEncoder().encode(null) == ["subscription": 1, "revision": 4, "value": nil])
  }

  @Test func anIntentTargetIsAPathOrAnID() throws {
    let params = IntentCall.Params(target: .id("72c769dae94f5355"), intent: "removeButtonTapped", wait: .settled)
    #expect(try JSONValueEncoder().encode(params) == ["target": ["id": "72c769dae94f5355"], "intent": "removeButtonTapped", "wait": "settled"])
    let byPath = try JSONValueDecoder().decode(IntentCall.Params.self, from: ["target": "/counters/0", "intent": "x"])
    #expect(byPath.target == .path("/counters/0"))
  }

  /// The notifications as `Docs/Protocol.md` shows them read into their types and write
  /// back the same JSON.
  @Test(arguments: [
    (ArborNotification.stateChanged, #"{"subscription":1,"revision":3,"patch":[{"op":"replace","path":"/count","value":2}]}"#),
    (.stateChanged, #"{"exists":false,"patch":[{"op":"replace","path":"","value":null}],"revision":4,"subscription":1}"#),
    (.stateChanged, #"{"subscription":1,"revision":9,"value":null,"resync":true,"exists":false}"#),
    (.stateChanged, #"{"subscription":1,"revision":9,"value":{"count":1},"resync":true}"#),
    (.eventsEmitted, #"{"subscription":2,"revision":5,"type":"CounterRowModel.Event","event":{"removeTapped":{}},"source":{"id":"72c769dae94f5355","path":"/counters/1","type":"CounterRowModel"}}"#),
    (.watchClosed, #"{"subscription":2,"reason":"the event watch fell 1000 events behind and was closed; watch again to continue"}"#),
  ])
  func documentedNotificationsReadBackExactly(_ notification: ArborNotification, _ params: String) throws {
    let (original, again) = try Self.roundTrip(notification: notification.definition, params)
    #expect(original == again)
    let request = RPCRequest.notification(notification.rawValue, params: try JSONValue(parsing: Array(params.utf8)))
    #expect(try notification.definition.decodes(request))
  }

  @Test func errorMessagesAreWrittenOnce() {
    let path = RPCError.pathNotFound("/nope")
    #expect(path.message == "nothing in the state at '/nope'")
    #expect(path.is(.pathNotFound) && path.data?["path"] == "/nope" && path.data?["cut"] == nil)
    let denied = RPCError.permissionDenied(method: "state.restore", required: "admin", role: nil)
    #expect(denied.message == "state.restore needs the admin role; this connection has no role (the daemon does not know this user)")
    #expect(denied.data?["role"] == .null)
    let wrong = RPCError.wrongParameterType(method: "state.get", parameter: "path", expected: "a string", found: "number")
    #expect(wrong.code == -32602 && wrong.message == "Invalid params: parameter 'path' of state.get must be a string, not number")
    #expect(wrong.is(.invalidParameter))
    let range = RPCError.outOfRange(method: "history.changes", parameter: "limit", value: 0, range: 1...HistoryChanges.maxLimit)
    #expect(range.message == "Invalid params: parameter 'limit' of history.changes must be between 1 and 10000; it is 0")
  }
}

extension ArborNotificationDefinition {
  /// Whether `request` reads as this notification.
  static func decodes(_ request: RPCRequest) throws -> Bool { try params(of: request) != nil }
}
