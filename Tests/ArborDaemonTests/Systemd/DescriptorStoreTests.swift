import ArborClient
import ArborJSON
import ArborTesting
import Foundation
import ProcessSlots
import Synchronization
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// The socket kept across a restart: under a service manager that keeps descriptors
/// (`$FDSTORE`, from `FileDescriptorStoreMax=`), the daemon hands its listening socket over
/// with `FDSTORE=1` and `FDNAME=socket`, and leaves the socket file at stop; the next
/// process gets it back as systemd passes it (`LISTEN_FDS`, `LISTEN_FDNAMES=socket`). A
/// client that connects while no process runs waits in the backlog and is answered by the
/// next one. The test plays the service manager's part: its notify socket takes the
/// descriptor, and it starts the next process with it as file descriptor 3.
@Suite(.startsProcesses, .serialized) struct DescriptorStoreTests {
  @Test func aClientConnectingDuringARestartIsAnsweredByTheNextProcess() async throws {
    let notify = try NotifyListener(path: try DaemonHarness.temporaryDirectory() + "/notify")
    defer { notify.close() }
    let daemon = try SpawnedDaemon(environment: ["NOTIFY_SOCKET": notify.path, "FDSTORE": "4"])
    defer { daemon.kill() }
    try await daemon.start()
    try await eventually("the daemon to hand its socket over (FDSTORE=1)\n\(notify.messages)") { !notify.storedDescriptors.isEmpty }
    let stored = try #require(notify.storedDescriptors.first)
    #expect(stored.name == "socket" && notify.storedDescriptors.count == 1, "\(notify.storedDescriptors)")
    let client = try await daemon.connect()
    _ = try await client.call("intent.call", ["intent": "addButtonTapped"])
    client.close()

    try await daemon.terminate()
    #expect(FileManager.default.fileExists(atPath: daemon.socket), "the socket file stays for the next process")
    // Nobody serves now: the connection waits in the kept socket's backlog.
    let waiting = try RawSocket(path: daemon.socket)
    waiting.send(#"{"jsonrpc":"2.0","id":7,"method":"state.get","params":{"path":"/counters"}}"# + "\n")
    try await Task.sleep(for: .milliseconds(200))
    #expect(waiting.readAvailable().isEmpty, "no answer while no process runs")

    try await daemon.start(passing: (stored.descriptor, stored.name))
    let received = Mutex<[UInt8]>([])
    try await eventually("the reply of the next process to the waiting client") {
      let bytes = waiting.readAvailable()
      return received.withLock { $0 += bytes; return $0.contains(UInt8(ascii: "\n")) }
    }
    let reply = received.withLock { $0 }
    let answer = try JSONValue(parsing: String(decoding: reply.prefix { $0 != UInt8(ascii: "\n") }, as: UTF8.self))
    #expect(answer["id"] == 7 && answer["result"]?["revision"] == 1, "\(answer)")
    #expect(answer["result"]?["value"]?.arrayValue?.count == 1, "the counter added before the restart: \(answer)")
    #expect(daemon.log.contains("on the socket systemd passed (socket)"), "\(daemon.log)")
    // The next process does not hand the same socket over again.
    #expect(notify.storedDescriptors.filter { $0.name == "socket" }.count == 1, "\(notify.messages)")
  }

  @Test func withoutADescriptorStoreTheSocketGoesAtStop() async throws {
    let notify = try NotifyListener(path: try DaemonHarness.temporaryDirectory() + "/notify")
    defer { notify.close() }
    let daemon = try SpawnedDaemon(environment: ["NOTIFY_SOCKET": notify.path])
    defer { daemon.kill() }
    try await daemon.start()
    try await eventually("READY=1") { notify.has("READY=1") }
    try await daemon.terminate()
    #expect(notify.storedDescriptors.isEmpty && !notify.messages.contains { $0.contains("FDSTORE") }, "\(notify.messages)")
    #expect(!FileManager.default.fileExists(atPath: daemon.socket), "the socket file is removed at stop")
  }
}
