import ArborClient
import ArborJSON
import ArborTesting
import Foundation
import NIOCore
import ProcessSlots
import Testing

@testable import ArborDaemon

/// A large reply over the inspector's WebSocket arrives whole, in time linear in its size:
/// the relay between the daemon's lines and the WebSocket's messages searches each byte for
/// the end of its line once.
@Suite(.startsProcesses) struct WebSocketLargeReplyTests {
  /// Rows in the tree of the end-to-end test: `ARBOR_WS_REPLY_ROWS`, else 20,000 (a 2.4 MB
  /// reply). 100,000 rows make the 10.7 MB reply of Docs/Performance.md.
  static let rows = ProcessInfo.processInfo.environment["ARBOR_WS_REPLY_ROWS"].flatMap { Int($0) } ?? 20_000

  @Test func aLineInManyReadsIsSearchedOnce() async throws {
    // 4 MiB in 4 KiB reads: searching from the start of the line at each read would look at
    // 2 GiB (seconds of CPU, in a debug build); once, at 4 MiB (milliseconds). Timed in the
    // CPU time of the thread that frames, so that a busy machine does not count.
    struct Framed: Sendable {
      var early = 0
      var searchedAll = true
      var line: Int?
      var next: String?
      var partial: Bool
      var rest: String
      var cpuSeconds: Double
    }
    let framed = try await onThread("a 4 MiB line to be framed", seconds: 120) { () -> Framed in
      var lines = WebSocketBridge.Lines()
      var buffer = ByteBuffer()
      let read = [UInt8](repeating: UInt8(ascii: "x"), count: 4_096)
      var early = 0
      var searchedAll = true
      let started = Self.threadCPUSeconds()
      for _ in 0..<1_024 {
        buffer.writeBytes(read)
        if lines.nextLine(in: &buffer) != nil { early += 1 }
        searchedAll = searchedAll && lines.searched == buffer.readableBytes
      }
      buffer.writeBytes(Array("}\n{\"next\":1}\n{\"part".utf8))
      let line = lines.nextLine(in: &buffer)
      let cpuSeconds = Self.threadCPUSeconds() - started
      let next = lines.nextLine(in: &buffer)
      let partial = lines.nextLine(in: &buffer)
      return Framed(
        early: early, searchedAll: searchedAll, line: line?.readableBytes, next: next.map { String(buffer: $0) },
        partial: partial != nil, rest: String(buffer: buffer), cpuSeconds: cpuSeconds)
    }
    #expect(framed.early == 0, "a line came out before its newline")
    #expect(framed.searchedAll, "the framer did not remember how far it had searched")
    #expect(framed.line == 4 << 20 + 1)
    #expect(framed.next == #"{"next":1}"#)
    #expect(!framed.partial)
    #expect(framed.rest == #"{"part"#)
    #expect(framed.cpuSeconds < 1, "framing a 4 MiB line read 4 KiB at a time took \(framed.cpuSeconds) s of CPU")
  }

  /// The CPU time of the calling thread, in seconds.
  static func threadCPUSeconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
  }

  @Test func aLargeStateGetArrivesWholeOverTheWebSocketAsOnTheSocket() async throws {
    try await withHTTPDaemon { daemon, port in
      let client = try await daemon.connect()
      defer { client.close() }
      let rows = Self.rows
      try await Self.fill(client, rows: rows)
      let request = #"{"jsonrpc":"2.0","id":7,"method":"state.get","params":{"path":"/counters"}}"#

      // Two rounds of the same request on each path, the socket first: the first reply of
      // a revision may cost more than the next (the daemon's caches), so each path's time is
      // printed for both rounds.
      var times: [String] = []
      for round in 1...2 {
        let socket = try LineClient(path: daemon.socket)
        let (line, socketSeconds) = try await onThread("state.get of \(rows) rows on the socket", seconds: 300) {
          let started = Date()
          try socket.send(request)
          let line = try socket.readLine()
          return (line, Date().timeIntervalSince(started))
        }
        // The client's deinit closes its socket.

        // The WebSocket: the same request, the same bytes.
        let (message, webSocketSeconds) = try await WebSocketTestClient.with(port: port) { webSocket in
          let started = Date()
          try await webSocket.send(request)
          let frame = try await webSocket.receive(seconds: 300, what: "the reply of state.get of \(rows) rows over the WebSocket")
          return (frame, Date().timeIntervalSince(started))
        }
        guard message.opcode == 1 else {
          Issue.record("a text message, not opcode \(message.opcode) \(message.closeCode.map { "(close \($0): \(message.closeReason))" } ?? "")")
          return
        }
        #expect(message.payload.count == line.count, "the WebSocket's reply has \(message.payload.count) bytes, the socket's \(line.count)")
        // Compared first, then expected: a failed `==` of two arrays makes Swift Testing
        // compute their difference, which for 2 MB against a short one did not end in the
        // run's 600 s (a fresh clone's run, 2026-11-28).
        let same = message.payload == line
        #expect(same, "the WebSocket's reply differs from the socket's")
        if round == 1 {
          let count = try await onThread("the reply to parse", seconds: 120) {
            try JSONValue(parsing: message.payload)["result"]?["value"]?.arrayValue?.count
          }
          #expect(count == rows)
        }
        times.append(
          "round \(round): socket \(String(format: "%.3f", socketSeconds)) s, WebSocket \(String(format: "%.3f", webSocketSeconds)) s "
            + "(\(String(format: "%.2f", webSocketSeconds / max(socketSeconds, 0.001)))×)")
        if round == 2 { print("state.get of \(rows) rows (\(line.count) bytes): \(times.joined(separator: "; "))") }
      }
    }
  }

  /// Makes `/counters` hold `rows` rows shaped like one `addButtonTapped` makes, by one
  /// `state.restore` of a record built from the daemon's own snapshot.
  static func fill(_ client: ArborConnection, rows: Int) async throws {
    try await client.call("intent.call", ["intent": "addButtonTapped"])
    let record = try await client.call("state.snapshot")
    let filled = try await onThread("a record of \(rows) rows to be built", seconds: 120) {
      guard case .object(var members) = record, case .object(var state)? = members["state"],
        case .array(let counters)? = state["counters"], let template = counters.first
      else { throw HarnessError("no /counters row in the snapshot: \(record)") }
      var next: UInt64 = 0x1000_0000_0000_0000
      state["counters"] = .array(
        (0..<rows).map { _ in
          withFreshIDs(template) {
            next += 1
            return String(next, radix: 16)
          }
        })
      members["state"] = .object(state)
      return JSONValue.object(members)
    }
    _ = try await withDeadline("the restore of \(rows) rows", seconds: 300) {
      try await client.call("state.restore", ["record": filled])
    }
  }

  /// `value` with every model id (16 hexadecimal digits under `"id"`) replaced by `next()`.
  static func withFreshIDs(_ value: JSONValue, _ next: () -> String) -> JSONValue {
    switch value {
    case .array(let items): return .array(items.map { withFreshIDs($0, next) })
    case .object(let members):
      var copy: [String: JSONValue] = [:]
      for (key, item) in members {
        if key == "id", case .string(let id) = item, id.utf8.count == 16 {
          copy[key] = .string(next())
        } else {
          copy[key] = withFreshIDs(item, next)
        }
      }
      return .object(copy)
    default: return value
    }
  }
}
