import ArborJSON
import Foundation
import NIOCore
import NIOEmbedded
import Testing

@testable import ArborDaemon

/// ``RequestStage`` at the end of the daemon's own pipeline, over a real tree and request
/// handler (``HostedPipeline``), without a socket: requests answered in the order they
/// came, whatever the reads' cuts, a batch handled in slices, a long line parsed off the
/// loop, the end of input with work pending, and the ways a client is held back.
@Suite struct RequestStageTests {
  private static func add(id: Int, amount: Int = 1) -> String {
    #"{"jsonrpc":"2.0","id":\#(id),"method":"intent.call","params":{"intent":"add","params":{"amount":\#(amount)}}}"#
  }

  private static func addWhenFileExists(id: Int, amount: Int, path: String) -> String {
    #"{"jsonrpc":"2.0","id":\#(id),"method":"intent.call","params":{"intent":"addWhenFileExists","params":{"amount":\#(amount),"path":"\#(path)"}}}"#
  }

  private static func status(id: Int) -> String { #"{"jsonrpc":"2.0","id":\#(id),"method":"daemon.status"}"# }

  /// A batch line of `count` `add` calls, ids from `firstID`.
  private static func batch(_ count: Int, firstID: Int) -> String {
    "[" + (0..<count).map { add(id: firstID + $0) }.joined(separator: ",") + "]"
  }

  /// Runs `body` with a hosted tree, closed afterwards whatever happens.
  private static func withPipeline(_ arguments: [String] = [], _ body: (HostedPipeline) async throws -> Void) async throws {
    let hosted = try HostedPipeline(arguments)
    do {
      try await body(hosted)
    } catch {
      await hosted.close()
      throw error
    }
    await hosted.close()
  }

  @Test func pipelinedRequestsInOneReadAreAnsweredInOrderInOneWrite() async throws {
    try await Self.withPipeline { hosted in
      let connection = try await hosted.connect()
      try await connection.send((1...5).map { Self.add(id: $0, amount: $0) }.joined(separator: "\n") + "\n")
      let replies = try await connection.replies(5)
      #expect(replies.map { $0["id"]?.intValue } == [1, 2, 3, 4, 5])
      #expect(replies.allSatisfy { $0["result"]?["revision"] != nil })
      #expect(try await connection.writes() == 1)
      #expect(hosted.value == 15)
    }
  }

  /// A request sent a byte at a time is answered once its newline comes, and not before.
  @Test func aRequestSplitAtEveryByteIsAnsweredAtItsEnd() async throws {
    try await Self.withPipeline { hosted in
      let connection = try await hosted.connect()
      let line = Array((Self.add(id: 7, amount: 2) + "\r\n").utf8)
      for byte in line.dropLast() {
        try await connection.send(String(decoding: [byte], as: UTF8.self))
      }
      #expect(try await connection.replies().isEmpty)
      try await connection.send("\n")
      #expect(try await connection.replies(1).map { $0["id"]?.intValue } == [7])
      #expect(hosted.value == 2)
    }
  }

  /// The client sees the error of a line over `--max-line-bytes` (after the replies to the
  /// lines before it), then the connection closes; what it sent after is not run.
  @Test func aLineOverTheLimitIsAnsweredWithItsErrorThenClosed() async throws {
    try await Self.withPipeline(["--max-line-bytes", "256"]) { hosted in
      let connection = try await hosted.connect()
      try await connection.send(Self.add(id: 1) + "\n" + String(repeating: "x", count: 300) + "\n" + Self.add(id: 2) + "\n")
      let replies = try await connection.replies(2)
      #expect(replies.count == 2)
      #expect(replies[0]["id"]?.intValue == 1)
      #expect(replies[1]["id"] == .null)
      #expect(replies[1]["error"]?["message"]?.stringValue == "a request line is longer than the limit of 256 bytes; the connection is closed")
      try await connection.waitUntilClosed()
      #expect(hosted.value == 1)
    }
  }

  /// A batch too long for one slice: nothing is answered within the read, the lines after
  /// it wait, another connection of the same loop is served between its slices, and its
  /// replies come as one array before the next line's.
  @Test func aBatchIsHandledInSlicesAndTheNextLineWaitsForIt() async throws {
    try await Self.withPipeline { hosted in
      let connection = try await hosted.connect()
      let other = try await hosted.connect(loop: connection.loop)
      let size = 2_000
      try await connection.send(Self.batch(size, firstID: 1) + "\n" + Self.add(id: 9_001) + "\n")
      // One slice ran (2 ms); the rest is scheduled on the loop's clock, which has not moved.
      #expect(try await connection.replies().isEmpty)
      try await other.send(Self.status(id: 5) + "\n")
      #expect(try await other.replies().map { $0["id"]?.intValue } == [5])
      #expect(try await connection.replies().isEmpty)
      let replies = try await connection.replies(2)
      #expect(replies.count == 2)
      let array = try #require(replies.first.flatMap { reply -> [JSONValue]? in
        guard case .array(let elements) = reply else { return nil }
        return elements
      })
      #expect(array.map { $0["id"]?.intValue } == (1...size).map { Int64($0) })
      #expect(replies[1]["id"]?.intValue == 9_001)
      #expect(hosted.value == Int64(size + 1))
    }
  }

  /// A batch on a line of more than 64 KiB is parsed off the loop, and its replies (more
  /// than 256) encoded off the loop; the lines read with it, after it, are answered after
  /// it, in order.
  @Test func aLongLineIsParsedOffTheLoopAndTheLinesAfterItAreAnsweredInOrder() async throws {
    try await Self.withPipeline { hosted in
      let connection = try await hosted.connect()
      let long = Self.batch(1_000, firstID: 1)
      #expect(long.utf8.count >= RPCLineCodec.offLoopLineBytes)
      try await connection.send(long + "\n" + Self.add(id: 9_001) + "\n" + Self.status(id: 9_002) + "\n")
      let replies = try await connection.replies(3)
      #expect(replies.count == 3)
      guard case .array(let elements) = replies[0] else {
        Issue.record("the first reply is not the batch's array: \(replies[0])")
        return
      }
      #expect(elements.count == 1_000)
      #expect(elements.last?["id"]?.intValue == 1_000)
      #expect(replies[1]["id"]?.intValue == 9_001)
      #expect(replies[2]["id"]?.intValue == 9_002)
      #expect(hosted.value == 1_001)
    }
  }

  /// The client half-closes while an `async` intent runs: the connection stays open
  /// until its reply is written, then closes.
  @Test func inputClosedWithWorkPendingStillGetsTheRepliesThenCloses() async throws {
    try await Self.withPipeline { hosted in
      let connection = try await hosted.connect()
      let gate = hosted.directory + "/gate"
      try await connection.send(Self.add(id: 1) + "\n" + Self.addWhenFileExists(id: 2, amount: 10, path: gate) + "\n")
      try await connection.closeInput()
      #expect(try await connection.replies(1).map { $0["id"]?.intValue } == [1])
      try await Task.sleep(for: .milliseconds(50))
      await connection.loop.run()
      #expect(connection.channel.isActive)
      #expect(try await connection.replies().count == 1)
      _ = FileManager.default.createFile(atPath: gate, contents: nil)
      #expect(try await connection.replies(2).map { $0["id"]?.intValue } == [1, 2])
      try await connection.waitUntilClosed()
      #expect(hosted.value == 11)
    }
  }

  /// A half-close with nothing pending closes the connection once the replies are out.
  @Test func inputClosedWithNothingPendingCloses() async throws {
    try await Self.withPipeline { hosted in
      let connection = try await hosted.connect()
      try await connection.send(Self.status(id: 1) + "\n")
      try await connection.closeInput()
      try await connection.waitUntilClosed()
      #expect(try await connection.replies().map { $0["id"]?.intValue } == [1])
    }
  }

  /// With `--max-in-flight 1`, a line behind a running `async` intent waits, and the
  /// read the socket asks for meanwhile is held until it has started.
  @Test func aLineBehindTheInFlightLimitWaitsAndHoldsTheRead() async throws {
    try await Self.withPipeline(["--max-in-flight", "1"]) { hosted in
      let connection = try await hosted.connect()
      let gate = hosted.directory + "/gate"
      try await connection.send(Self.addWhenFileExists(id: 1, amount: 10, path: gate) + "\n" + Self.add(id: 2) + "\n")
      let readsBefore = connection.reads.count
      try await connection.askToRead()
      try await Task.sleep(for: .milliseconds(50))
      await connection.loop.run()
      #expect(connection.reads.count == readsBefore)
      #expect(try await connection.replies().isEmpty)
      _ = FileManager.default.createFile(atPath: gate, contents: nil)
      #expect(try await connection.replies(2).map { $0["id"]?.intValue } == [1, 2])
      #expect(connection.reads.count == readsBefore + 1)
      // Nothing waits: a read goes straight through.
      try await connection.askToRead()
      #expect(connection.reads.count == readsBefore + 2)
    }
  }

  /// A slow reader: while its socket is full its replies wait in its outbox and go out in
  /// one write when it drains; one that leaves more than `--max-output-bytes` unread is
  /// closed, though it never reads.
  @Test func aSlowReadersRepliesWaitThenItIsClosedPastTheLimit() async throws {
    try await Self.withPipeline(["--max-output-bytes", "4096"]) { hosted in
      let connection = try await hosted.connect()
      let channel = connection.channel
      channel.isWritable = false
      try await connection.loop.executeInContext { channel.pipeline.syncOperations.fireChannelWritabilityChanged() }
      try await connection.send((1...3).map { Self.add(id: $0) }.joined(separator: "\n") + "\n")
      #expect(try await connection.replies().isEmpty)
      channel.isWritable = true
      try await connection.loop.executeInContext { channel.pipeline.syncOperations.fireChannelWritabilityChanged() }
      #expect(try await connection.replies(3).map { $0["id"]?.intValue } == [1, 2, 3])
      #expect(try await connection.writes() == 1)
      channel.isWritable = false
      try await connection.loop.executeInContext { channel.pipeline.syncOperations.fireChannelWritabilityChanged() }
      // `daemon.status` replies of some hundreds of bytes each, never read.
      try await connection.send((10..<40).map { Self.status(id: $0) }.joined(separator: "\n") + "\n")
      try await connection.waitUntilClosed()
      #expect(try await connection.replies().count == 3)
    }
  }
}
