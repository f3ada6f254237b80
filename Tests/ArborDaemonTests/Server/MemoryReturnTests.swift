import ArborClient
import ArborJSON
import ArborRPC
import ArborTesting
import Foundation
import ProcessSlots
import Testing

/// Whatever a request needed is given back once it is done: the daemon's resident memory
/// comes back to within 50 MB of where it was, and an error does not echo a huge input.
@Suite(.startsProcesses, .disabled(if: Sanitizers.areActive, "a sanitizer's allocator keeps freed memory back"))
struct MemoryReturnTests {
  /// How far above its baseline the daemon's resident memory may stay (the issue's figure).
  static let slackKilobytes = 50 * 1024
  static let maxLine = 16 << 20

  /// A `state.get` line of exactly `length` bytes whose path is made of `x`s.
  static func hugePathLine(length: Int) -> [UInt8] {
    let head = Array(#"{"jsonrpc":"2.0","id":1,"method":"state.get","params":{"path":"/"#.utf8)
    let tail = Array(#""}}"#.utf8)
    return head + [UInt8](repeating: UInt8(ascii: "x"), count: length - head.count - tail.count) + tail
  }

  /// Waits until the daemon's resident memory is back within the slack of `baseline`.
  func expectMemoryBack(_ daemon: DaemonUnderTest, to baseline: Int, after step: String) async throws {
    let returned = await expectEventually("the daemon's resident memory to come back within 50 MB of \(baseline / 1024) MB after \(step)", seconds: 60) {
      daemon.residentKilobytes() <= baseline + Self.slackKilobytes
    }
    print("resident memory after \(step): \(daemon.residentKilobytes() / 1024) MB (baseline \(baseline / 1024) MB)")
    if !returned { Issue.record("after \(step): \(daemon.residentKilobytes() / 1024) MB, baseline \(baseline / 1024) MB") }
  }

  @Test func memoryComesBackAfterLongLinesLargeBatchesAndAnUnreadClient() async throws {
    try await withDaemon { daemon, _ in
      let client = try await daemon.connect()
      try await client.call("intent.call", ["intent": "addButtonTapped"])
      #expect(try await client.call("daemon.status")["name"] == "counterfactd")
      try await Task.sleep(for: .milliseconds(300))
      let baseline = daemon.residentKilobytes()
      try #require(baseline > 0)

      // A line of exactly the limit: answered (nothing at that path).
      let long = try LineClient(path: daemon.socket)
      let answer = try await onThread("the reply to a 16 MiB line", seconds: 120) {
        try long.send(Self.hugePathLine(length: Self.maxLine) + [0x0A])
        return try long.readLine()
      }
      #expect(try JSONValue(parsing: answer)["error"]?["data"]?["name"] == "org.arbor.PathNotFound")
      try await expectMemoryBack(daemon, to: baseline, after: "a 16 MiB line")

      // One byte more: refused, and the connection closed.
      let tooLong = try LineClient(path: daemon.socket)
      let refusal = try await onThread("the refusal of a 16 MiB + 1 line", seconds: 120) {
        // The daemon stops reading once the line passes the limit: the end of the send may fail.
        try? tooLong.send(Self.hugePathLine(length: Self.maxLine + 1) + [0x0A])
        return try tooLong.readLine()
      }
      #expect(try JSONValue(parsing: refusal)["error"]?["data"]?["name"] == "org.arbor.LineTooLong")
      #expect(try await onThread("the refused connection to close", seconds: 120) { tooLong.readsEnd() })
      try await expectMemoryBack(daemon, to: baseline, after: "a 16 MiB line and a 16 MiB + 1 line")

      // A batch of 100,000 requests.
      let batchClient = try LineClient(path: daemon.socket)
      let line = BatchFairnessTests.batchLine("state.get", count: 100_000, params: #"{"path":"/counters/0/counter/count"}"#)
      let reply = try await onThread("the reply to a batch of 100,000 state.get", seconds: 300) {
        try batchClient.send(line)
        return try batchClient.readLine()
      }
      guard case .array(let replies) = try JSONValue(parsing: reply) else {
        Issue.record("not an array: \(String(decoding: reply.prefix(200), as: UTF8.self))")
        return
      }
      #expect(replies.count == 100_000)
      try await expectMemoryBack(daemon, to: baseline, after: "a batch of 100,000 requests")

      // A client that asks for more than --max-output-bytes (64 MiB) and reads none of it:
      // 600 reads of a 160 KB state (96 MB). The daemon closes it.
      try await client.call("intent.call", ["intent": "addButtonTapped"])
      let many = BatchFairnessTests.batchLine("intent.call", count: 1_500, params: #"{"intent":"addButtonTapped"}"#)
      let grower = try LineClient(path: daemon.socket)
      _ = try await onThread("the rows to be added", seconds: 120) {
        try grower.send(many)
        return try grower.readLine()
      }
      // The 1,500 rows cost memory of their own: this step is measured from here.
      try await Task.sleep(for: .milliseconds(300))
      let withRows = max(baseline, daemon.residentKilobytes())
      let unread = try LineClient(path: daemon.socket, receiveBuffer: 4_096)
      let reads = (0..<600).map { #"{"jsonrpc":"2.0","id":\#($0),"method":"state.get"}"# + "\n" }.joined()
      try await onThread("600 state.get sent and never read", seconds: 120) {
        // The daemon closes the connection once it holds 64 MiB unread: the end may fail.
        try? unread.send(Array(reads.utf8))
      }
      try await eventually("the daemon to close the client that leaves 64 MiB unread", seconds: 120) {
        daemon.log.contains("bytes of output unread")
      }
      try await expectMemoryBack(daemon, to: withRows, after: "a client that left 64 MiB unread")
      #expect(try await client.call("daemon.status")["name"] == "counterfactd")
    }
  }

  /// An error echoes at most 1,024 bytes of any input, cut in the middle and marked: a
  /// 16 MiB path gives a reply of a couple of kilobytes (it was 32 MiB: the path twice).
  @Test func anErrorEchoesAtMostTheDocumentedLengthAndSaysItCut() async throws {
    try await withDaemon { daemon, _ in
      let client = try LineClient(path: daemon.socket)
      let line = Self.hugePathLine(length: Self.maxLine)
      let reply = try await onThread("the reply to a state.get of a 16 MiB path", seconds: 120) {
        try client.send(line + [0x0A])
        return try client.readLine()
      }
      #expect(reply.count < 4_096, "the reply is \(reply.count) bytes")
      let error = try JSONValue(parsing: reply)["error"]
      #expect(error?["data"]?["name"] == "org.arbor.PathNotFound")
      #expect(error?["data"]?["cut"] == true)
      guard case .string(let message)? = error?["message"], case .string(let path)? = error?["data"]?["path"] else {
        Issue.record("no message or path in \(String(decoding: reply, as: UTF8.self))")
        return
      }
      #expect(message.hasPrefix("nothing in the state at '/xxxx"), "\(message.prefix(80))")
      #expect(message.contains("bytes cut]…"), "\(message)")
      #expect(path.hasPrefix("/xxxx") && path.hasSuffix("xxxx") && path.contains("bytes cut]…"), "\(path.prefix(80))…")
      #expect(path.utf8.count <= 1_024, "the path echoed is \(path.utf8.count) bytes")

      // Also in a batch, and for a huge parameter name or method name.
      let name = String(repeating: "p", count: 1 << 20)
      let batch = #"[{"jsonrpc":"2.0","id":1,"method":"state.get","params":{"\#(name)":1}},{"jsonrpc":"2.0","id":2,"method":"\#(name)"}]"#
      let batchReply = try await onThread("the reply to a batch with a 1 MiB parameter and method name", seconds: 120) { try client.call(batch) }
      #expect(batchReply.count < 8_192, "the batch's reply is \(batchReply.count) bytes")
      let members = try JSONValue(parsing: batchReply)
      #expect(members[0]?["error"]?["code"] == -32602 && members[0]?["error"]?["data"]?["cut"] == true, "\(members[0] ?? .null)")
      #expect(members[1]?["error"]?["code"] == -32601 && members[1]?["error"]?["data"]?["cut"] == true, "\(members[1] ?? .null)")

      // A short one is echoed whole, with no mark.
      let short = try JSONValue(parsing: try await onThread("the reply to a short missing path") {
        try client.call(#"{"jsonrpc":"2.0","id":3,"method":"state.get","params":{"path":"/nope"}}"#)
      })
      #expect(short["error"]?["message"]?.stringValue?.hasPrefix("nothing in the state at '/nope': / has ") == true, "\(short)")
      #expect(short["error"]?["data"]?["cut"] == nil)
    }
  }

  /// The framer lets go of the room a long line needed once the line is taken.
  @Test func theFramerKeepsNoRoomOfALongLine() throws {
    var framer = LineFramer(maxLineLength: 1 << 24)
    let chunk = [UInt8](repeating: UInt8(ascii: "a"), count: 1 << 16)
    for _ in 0..<64 { framer.append(chunk) }
    framer.append([0x0A])
    let line = try #require(try framer.takeLine())
    #expect(line.count == 1 << 22)
    #expect(framer.capacity <= LineFramer.retainedCapacity, "the framer keeps \(framer.capacity) bytes")

    // Behind a long line, a short one: the long one is copied out, the room let go of at
    // the next append.
    for _ in 0..<64 { framer.append(chunk) }
    framer.append(Array("\n{\"b\":1}".utf8))
    #expect(try framer.takeLine()?.count == 1 << 22)
    framer.append(Array("\n".utf8))
    #expect(try framer.takeLine() == Array("{\"b\":1}".utf8))
    framer.append(Array("{\"c\":".utf8))
    #expect(framer.capacity <= LineFramer.retainedCapacity, "the framer keeps \(framer.capacity) bytes")
    #expect(framer.pendingCount == 5)
  }
}
