import ArborJSON
import ArborTesting
import Foundation
import ProcessSlots
import Synchronization
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Connections kept across a restart: under a service manager that keeps descriptors
/// (`$FDSTORE`), the daemon stores each client's socket at stop with its watches and what
/// it had sent but not finished (`connection-N`, `handover`), and the next process serves
/// the same sockets. The test plays the service manager: its notify socket takes the
/// descriptors, lets go of those the next process says it took (`FDSTOREREMOVE=1`), and it
/// starts the next process with what it keeps, as systemd passes them.
@Suite(.startsProcesses, .serialized) struct ConnectionHandOverTests {
  static let addButton = #"{"jsonrpc":"2.0","id":2,"method":"intent.call","params":{"intent":"addButtonTapped"}}"#

  @Test func aWatcherAndAClientKeepTheirConnectionsAcrossARestart() async throws {
    let notify = try NotifyListener(path: try DaemonHarness.temporaryDirectory() + "/notify")
    defer { notify.close() }
    let daemon = try SpawnedDaemon(environment: ["NOTIFY_SOCKET": notify.path, "FDSTORE": "16"])
    defer { daemon.kill() }
    try await daemon.start()
    try await eventually("the daemon to store its socket\n\(notify.messages)") { notify.storedDescriptors.contains { $0.name == "socket" } }

    let watcher = try LineSocket(path: daemon.socket)
    watcher.send(#"{"jsonrpc":"2.0","id":1,"method":"state.watch","params":{"path":"/counters"}}"#)
    let watching = try await watcher.message("the reply to state.watch")
    let subscription = try #require(watching["result"]?["subscription"]?.intValue, "\(watching)")
    let caller = try LineSocket(path: daemon.socket)
    caller.send(Self.addButton)
    #expect(try await caller.message("the first intent's reply")["result"]?["revision"] == 1)
    let first = try await watcher.message("the first change")
    #expect(first["params"]?["revision"] == 1 && first["params"]?["subscription"]?.intValue == subscription, "\(first)")

    // Half a request before the stop; the rest while no process runs.
    caller.sendPart(#"{"jsonrpc":"2.0","id":3,"method":"intent.call","par"#)
    try await Task.sleep(for: .milliseconds(100))
    let firstProcess = daemon.processID
    try await daemon.terminate()
    let stored = notify.storedDescriptors
    #expect(stored.filter { $0.name.hasPrefix("connection-") }.count == 2, "\(stored.map(\.name))")
    #expect(stored.contains { $0.name == "handover" }, "\(stored.map(\.name))\n\(daemon.log)")
    caller.send(#"ams":{"intent":"addButtonTapped"}}"#)

    try await daemon.start(passingAll: stored.map { (descriptor: $0.descriptor, name: $0.name) })
    #expect(daemon.processID != firstProcess)
    let reply = try await caller.message("the reply of the next process to the request sent across the restart")
    #expect(reply["id"] == 3 && reply["result"]?["revision"] == 2, "\(reply)")
    let second = try await watcher.message("the change the next process made")
    #expect(second["method"] == "state.changed", "\(second)")
    #expect(second["params"]?["subscription"]?.intValue == subscription, "the same subscription goes on: \(second)")
    #expect(second["params"]?["revision"] == 2 && second["params"]?["resync"] == nil, "the next revision, as a patch: \(second)")
    // A new watch takes a number after the handed-over one.
    watcher.send(#"{"jsonrpc":"2.0","id":4,"method":"state.watch","params":{"path":"/counters"}}"#)
    let another = try await watcher.message("the reply to a second state.watch")
    #expect((another["result"]?["subscription"]?.intValue ?? 0) > subscription, "\(another)")
    // The store let go of what the next process took.
    try await eventually("the store to keep only the socket: \(notify.storedDescriptors.map(\.name))") {
      notify.storedDescriptors.map(\.name) == ["socket"]
    }
    #expect(daemon.log.contains("took over 2 connections at revision 1 (generation 1)"), "\(daemon.log)")
    #expect(!watcher.ended && !caller.ended, "a client saw its connection end")
  }
}

/// A client's connection read line by line, that tells when the daemon ended it.
final class LineSocket: @unchecked Sendable {
  // Unchecked: one test task uses it at a time.
  private let socket: RawSocket
  private var buffered: [UInt8] = []
  private(set) var ended = false

  init(path: String) throws { socket = try RawSocket(path: path) }

  /// Sends `line` and its newline.
  func send(_ line: String) { socket.send(line + "\n") }

  /// Sends bytes with no newline: the start of a line.
  func sendPart(_ text: String) { socket.send(text) }

  /// The next line as JSON, within 20 s.
  func message(_ what: String) async throws -> JSONValue {
    try await withDeadline(what, seconds: 20) {
      while true {
        if let newline = self.buffered.firstIndex(of: UInt8(ascii: "\n")) {
          let line = Array(self.buffered[..<newline])
          self.buffered.removeFirst(newline + 1)
          return try JSONValue(parsing: line)
        }
        var chunk = [UInt8](repeating: 0, count: 65_536)
        let count = chunk.withUnsafeMutableBytes { recv(self.socket.fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
        if count == 0 {
          self.ended = true
          throw HarnessError("the connection ended while waiting for \(what)")
        }
        if count > 0 { self.buffered += chunk[..<count] } else { try await Task.sleep(for: .milliseconds(5)) }
      }
    }
  }
}
