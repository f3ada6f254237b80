import ArborJSON
import ArborTesting
import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// The HTTP listener's socket kept across a restart under the service manager's descriptor
/// store (`http-kept`), as the Unix socket is: a request sent while no process runs is
/// answered by the next one, on the same port.
@Suite(.startsProcesses, .serialized) struct HTTPSocketHandOverTests {
  static let kept = "http-kept"

  @Test func aRequestSentWhileNoProcessRunsIsAnsweredByTheNextOne() async throws {
    let (notify, daemon, port) = try await Self.stoppedUnderAStore()
    defer { notify.close() }
    defer { daemon.kill() }

    // No process runs: the kept socket still listens, and the request waits in its backlog.
    let waiting = HTTPFlood.connect(port: port)
    #expect(waiting >= 0, "the connection was refused while no process ran")
    guard waiting >= 0 else { return }
    defer { close(waiting) }
    let request = Array("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".utf8)
    #expect(request.withUnsafeBytes { send(waiting, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) } == request.count)

    try await daemon.start(passingAll: notify.storedDescriptors)
    let reply = try await onThread("the next process's reply to the request sent while none ran", seconds: 20) { () -> String in
      var received: [UInt8] = []
      var chunk = [UInt8](repeating: 0, count: 4_096)
      while true {
        let count = chunk.withUnsafeMutableBytes { recv(waiting, $0.baseAddress, $0.count, 0) }
        if count <= 0 { break }
        received += chunk[0..<count]
      }
      return String(decoding: received, as: UTF8.self)
    }
    #expect(reply.hasPrefix("HTTP/1.1 200"), "\(reply)")
    #expect(try await httpPort(socket: daemon.socket) == port, "the same port")
    #expect(daemon.log.contains("the HTTP listener serves the socket the process before it listened on (127.0.0.1:\(port))"), "\(daemon.log)")
    #expect(notify.storedDescriptors.filter { $0.name == Self.kept }.count == 1, "stored once: \(notify.storedDescriptors.map(\.name))")
  }

  @Test func aNextProcessWithoutHTTPClosesTheKeptSocket() async throws {
    let (notify, first, port) = try await Self.stoppedUnderAStore()
    defer { notify.close() }
    defer { first.kill() }

    #expect(Self.holdsListener(on: port, pid: getpid()), "the store (in this process) keeps the socket on \(port)")
    // The next process has no --http: it closes the socket, and the store lets go of it.
    let next = try SpawnedDaemon(environment: ["NOTIFY_SOCKET": notify.path, "FDSTORE": "16"])
    defer { next.kill() }
    try await next.start(passingAll: notify.storedDescriptors.filter { $0.name == Self.kept })
    try await eventually("the store to let go of the HTTP socket: \(notify.storedDescriptors.map(\.name))") {
      !notify.storedDescriptors.contains { $0.name == Self.kept }
    }
    #expect(next.log.contains("closed the HTTP socket the process before it listened on (127.0.0.1:\(port))"), "\(next.log)")
    // Neither the next process nor the test (the store's copy) holds it: the first process
    // has exited. (A connection to the port was the check until one run of the whole suite
    // connected: the kernel can give a freed port to the next socket that binds port 0, and
    // other tests bind many.)
    #expect(!Self.holdsListener(on: port, pid: next.processID), "the next process still listens on \(port)")
    #expect(!Self.holdsListener(on: port, pid: getpid()), "the store's copy of the socket on \(port) is still open")
  }

  /// Whether process `pid` has a descriptor of a socket listening on TCP `port` (the
  /// socket's inode in `/proc/net/tcp`, among its ``ProcessDescriptors``).
  static func holdsListener(on port: Int, pid: pid_t) -> Bool {
    guard let table = try? String(contentsOfFile: "/proc/net/tcp", encoding: .utf8) else { return false }
    let portHex = String(format: ":%04X", port)
    let listening = Set(
      table.split(separator: "\n").dropFirst().compactMap { line -> String? in
        let fields = line.split(separator: " ")
        guard fields.count > 9, fields[1].hasSuffix(portHex), fields[3] == "0A" else { return nil }
        return "socket:[\(fields[9])]"
      })
    return ProcessDescriptors.targets(of: pid).contains { $0.target.map(listening.contains) ?? false }
  }

  /// An upgrade passes the HTTP socket too: the new process serves the same port, and a
  /// request sent to it while the old process stops is answered.
  @Test func anUpgradeKeepsTheHTTPPort() async throws {
    let daemon = try SpawnedDaemon(options: ["--http", "127.0.0.1:0"])
    defer { daemon.kill() }
    try await daemon.start()
    let port = try await httpPort(socket: daemon.socket)
    let old = daemon.processID
    kill(old, SIGUSR2)
    try await eventually("the old process to hand over and exit\n\(daemon.log)", seconds: 60) { kill(old, 0) != 0 }
    let client = try await daemon.connect()
    let status = try await client.call("daemon.status")
    client.close()
    let next = try #require(status["pid"]?.intValue.map { pid_t($0) }, "\(status)")
    defer { kill(next, SIGKILL) }
    #expect(next != old)
    #expect(status["http"]?.stringValue == "http://127.0.0.1:\(port)/", "\(status)")
    let health = try await HTTPTestClient.get(port: port, "/healthz")
    #expect(health.status == 200)
    #expect(daemon.log.contains("the HTTP listener serves the socket the process before it listened on (127.0.0.1:\(port))"), "\(daemon.log)")
  }

  /// An inspector's WebSocket does not go to the next process: at the hand-over it is
  /// closed with 1012 (service restart), and a new one on the same port is served by the
  /// next process, where a watch resumes from the revision the first one had.
  @Test func aWebSocketIsToldToComeBackAndTheNextProcessServesIt() async throws {
    let (notify, daemon) = try await ConnectionHandOverTests.startedUnderAStore(options: ["--http", "127.0.0.1:0"])
    defer { notify.close() }
    defer { daemon.kill() }
    try await eventually("the daemon to store its HTTP socket\n\(notify.messages)") { notify.storedDescriptors.contains { $0.name == Self.kept } }
    let port = try await httpPort(socket: daemon.socket)
    let caller = try await daemon.connect()
    _ = try await caller.call("intent.call", ["intent": "addButtonTapped"])
    caller.close()

    let (code, reason, revision) = try await WebSocketTestClient.with(port: port) { socket -> (Int?, String, Int?) in
      try await socket.send(#"{"jsonrpc":"2.0","id":1,"method":"state.watch","params":{"path":""}}"#)
      let watched = try await socket.receiveJSON(what: "the watch's first reply")
      let revision = (watched["result"] as? [String: Any])?["revision"] as? Int
      try await daemon.terminate()
      let frame = try await socket.receive(what: "the close frame of the hand-over")
      return (frame.closeCode, frame.closeReason, revision)
    }
    #expect(code == 1012, "closed with \(code.map(String.init) ?? "no code") \(reason)")
    #expect(reason == "the daemon is restarting; reconnect")
    #expect(daemon.log.contains("handing over: 1 inspector WebSockets are told to reconnect (1012)"), "\(daemon.log)")
    #expect(!daemon.log.contains("handed 1 connections"), "the WebSocket's own connection went to the next process: \(daemon.log)")
    let since = try #require(revision, "the watch's reply named no revision")
    #expect(since >= 1)

    try await daemon.start(passingAll: notify.storedDescriptors)
    try await WebSocketTestClient.with(port: port) { socket in
      try await socket.send(#"{"jsonrpc":"2.0","id":2,"method":"state.watch","params":{"path":"","since":\#(since)}}"#)
      let resumed = try await socket.receiveJSON(what: "the next process's reply to a watch since \(since)")
      #expect(resumed["error"] == nil, "\(resumed)")
      #expect((resumed["result"] as? [String: Any])?["revision"] as? Int == since, "\(resumed)")
      try await socket.close()
    }
  }

  /// A daemon with `--http 127.0.0.1:0` under the test's descriptor store, started until it
  /// stored its HTTP socket, then stopped; with its port.
  static func stoppedUnderAStore() async throws -> (notify: NotifyListener, daemon: SpawnedDaemon, port: Int) {
    let (notify, daemon) = try await ConnectionHandOverTests.startedUnderAStore(options: ["--http", "127.0.0.1:0"])
    do {
      try await eventually("the daemon to store its HTTP socket\n\(notify.messages)") { notify.storedDescriptors.contains { $0.name == kept } }
      let port = try await httpPort(socket: daemon.socket)
      try await daemon.terminate()
      return (notify, daemon, port)
    } catch {
      daemon.kill()
      notify.close()
      throw error
    }
  }
}
