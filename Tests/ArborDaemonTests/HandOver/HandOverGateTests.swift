import ArborJSON
import Logging
import NIOCore
import NIOEmbedded
import Testing

@testable import ArborDaemon

/// ``HandOverGate`` alone in an `EmbeddedChannel`, and the watch hub's side of a hand-over:
/// what a closed gate lets through, what an opened one passes first, and how watches leave
/// one hub and go on in the next.
@Suite struct HandOverGateTests {
  private func makeChannel(_ gate: HandOverGate) throws -> (EmbeddedChannel, ReadCounter, InboundRecorder<ByteBuffer>) {
    let reads = ReadCounter()
    let recorder = InboundRecorder<ByteBuffer>()
    let channel = EmbeddedChannel()
    try channel.pipeline.syncOperations.addHandlers([reads, gate, recorder])
    return (channel, reads, recorder)
  }

  private func text(_ recorder: InboundRecorder<ByteBuffer>) -> [String] {
    recorder.events.compactMap { event in
      if case .read(let buffer) = event { return String(buffer: buffer) }
      return nil
    }
  }

  @Test func aClosedGateAsksTheSocketForNothingAndKeepsWhatAReadUnderWayBrings() throws {
    let gate = HandOverGate()
    let (channel, reads, recorder) = try makeChannel(gate)
    channel.pipeline.read()
    #expect(reads.count == 1)
    try channel.writeInbound(ByteBuffer(string: "{\"id\":1}\n"))
    gate.close()
    channel.pipeline.read()
    #expect(reads.count == 1, "a read went through a closed gate")
    try channel.writeInbound(ByteBuffer(string: "{\"id\":2}\n{\"id\""))
    #expect(text(recorder) == ["{\"id\":1}\n"])
    #expect(String(decoding: gate.held, as: UTF8.self) == "{\"id\":2}\n{\"id\"")
  }

  @Test func aHandedOverConnectionIsServedItsInputFirstWhenItsGateOpens() throws {
    let gate = HandOverGate(handedOver: Array("{\"id\":3,\"me".utf8))
    let (channel, reads, recorder) = try makeChannel(gate)
    _ = channel.connect(to: try SocketAddress(ipAddress: "127.0.0.1", port: 1))
    channel.pipeline.read()
    #expect(reads.count == 0 && text(recorder).isEmpty, "a closed gate served the connection")
    try channel.writeInbound(ByteBuffer(string: "thod\":\"x\"}\n"))
    #expect(text(recorder).isEmpty)
    gate.open()
    #expect(text(recorder) == ["{\"id\":3,\"method\":\"x\"}\n"], "the previous process's input, then what came since, in one read")
    #expect(reads.count == 1, "the read asked for while closed goes to the socket")
    gate.open()
    #expect(reads.count == 1 && text(recorder).count == 1, "opening twice does nothing more")
  }

  @Test func everyConnectionsWatchesLeaveTheHubAtOnceWithTheirRevision() throws {
    let hub = WatchHub(historyLimit: 10, logger: Logger(label: "HandOverGateTests"))
    hub.reset(document: ["counters": [1, 2]], revision: 9)
    let outboxes = (0..<3).map { _ in Outbox(watchLimit: 100, byteLimit: 1 << 20) {} }
    // Subscriptions 1 to 6, taken in turns: 1 and 4 by the first, 2 and 5 by the second, …
    for _ in 0..<2 {
      for outbox in outboxes {
        try hub.watchState(outbox: outbox, scope: JSONPointer(tokens: []), since: nil, treeRevision: 9) { _ in [] }
      }
    }
    hub.watchEvents(outbox: outboxes[2], scope: JSONPointer(tokens: []), types: nil) { _ in [] }
    let (revision, watches) = hub.handOverAll()
    #expect(revision == 9)
    #expect(watches[ObjectIdentifier(outboxes[0])]?.map(\.subscription) == [1, 4])
    #expect(watches[ObjectIdentifier(outboxes[1])]?.map(\.subscription) == [2, 5])
    #expect(watches[ObjectIdentifier(outboxes[2])]?.map(\.subscription) == [3, 6, 7])
    #expect(watches[ObjectIdentifier(outboxes[2])]?.last?.kind == .events)
    #expect(hub.subscriptionCount == 0 && outboxes.allSatisfy { !hub.hasWatches(of: $0) }, "the hub still has watches")
  }

  @Test func watchesLeaveOneHubAndGoOnInTheNextUnderTheirNumbers() throws {
    let logger = Logger(label: "HandOverGateTests")
    let document: JSONValue = ["counters": [1, 2]]
    let first = WatchHub(historyLimit: 10, logger: logger)
    first.reset(document: document, revision: 7)
    let outbox = Outbox(watchLimit: 100, byteLimit: 1 << 20) {}
    for _ in 0..<2 {
      try first.watchState(outbox: outbox, scope: try JSONPointer("/counters"), since: nil, treeRevision: 7) { _ in [] }
    }
    first.watchEvents(outbox: outbox, scope: JSONPointer(tokens: []), types: ["saved"]) { _ in [] }
    let handed = first.handOverAll().watches[ObjectIdentifier(outbox)] ?? []
    #expect(handed.map(\.subscription) == [1, 2, 3])
    #expect(handed.map(\.kind) == [.state, .state, .events] && handed[2].types == ["saved"] && handed[0].scope == "/counters")
    #expect(!first.hasWatches(of: outbox), "the handing hub still has the watches")

    // The next process at the same revision: the watches go on, nothing is queued.
    let next = WatchHub(historyLimit: 10, logger: logger)
    next.reset(document: document, revision: 7)
    let adopted = Outbox(watchLimit: 100, byteLimit: 1 << 20) {}
    next.restore(handed, outbox: adopted, revision: 7)
    #expect(next.subscriptionCount == 3 && adopted.isEmpty)
    try next.watchState(outbox: adopted, scope: JSONPointer(tokens: []), since: nil, treeRevision: 7) { _ in [] }
    #expect(
      (next.handOverAll().watches[ObjectIdentifier(adopted)] ?? []).map(\.subscription) == [1, 2, 3, 4],
      "a new watch takes the number after the handed ones")

    // At another revision the state watches get a resync first.
    let moved = WatchHub(historyLimit: 10, logger: logger)
    moved.reset(document: document, revision: 8)
    let resynced = Outbox(watchLimit: 100, byteLimit: 1 << 20) {}
    moved.restore(handed, outbox: resynced, revision: 7)
    guard case .items(let items) = resynced.take() else {
      Issue.record("nothing queued for watches that moved on")
      return
    }
    #expect(items.compactMap { item -> Int? in if case .resync(let subscription) = item { return subscription } else { return nil } } == [1, 2])
  }
}
