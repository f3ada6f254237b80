import ArborClient
import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Why the tests' listeners accept close-on-exec (``ChildDescriptors/accept(_:)``): a connection's descriptor that a spawned
/// process inherited keeps the connection open after the test closes its own, so its peer
/// never sees the end (the cut link's reset that did not come, in a busy run).
@Suite struct CloseOnExecAcceptTests {
  @Test func anAcceptedConnectionIsCloseOnExec() throws {
    let pair = try Listening()
    let client = try pair.connect()
    defer { close(client) }
    let accepted = try ChildDescriptors.accept(pair.listener)
    #expect(accepted >= 0, "accept failed: errno \(errno)")
    defer { close(accepted) }
    #expect(fcntl(accepted, F_GETFD) & FD_CLOEXEC != 0)
  }

  @Test func aSpawnedProcessKeepsAConnectionOpenOnlyWhenItInheritedIt() async throws {
    // A child given a copy (as a spawn passes a descriptor that is not close-on-exec; here
    // handed to it alone, so that no other test's child gets one): closing ours ends nothing.
    let pair = try Listening()
    let inheritedClient = try pair.connect()
    defer { close(inheritedClient) }
    let inherited = try ChildDescriptors.accept(pair.listener)
    try #require(inherited >= 0)
    let holder = try Self.spawnSleeper(holding: inherited)
    close(inherited)
    #expect(await !ConnectionEnd.seen(on: inheritedClient, within: .milliseconds(500)), "the child's copy keeps the connection open")
    kill(holder, SIGKILL)
    #expect(await ConnectionEnd.seen(on: inheritedClient, within: .seconds(10)), "the connection ends with the child's copy")

    // Accepted close-on-exec and not handed over: the child has no copy, and closing ours
    // ends it.
    let cleanClient = try pair.connect()
    defer { close(cleanClient) }
    let clean = try ChildDescriptors.accept(pair.listener)
    try #require(clean >= 0)
    let other = try Self.spawnSleeper(holding: nil)
    defer { kill(other, SIGKILL) }
    close(clean)
    #expect(await ConnectionEnd.seen(on: cleanClient, within: .seconds(10)), "closing the only descriptor ends the connection")
  }

  /// `sleep 30`, with a copy of `descriptor` as its descriptor 3 when one is given (nothing
  /// else of this process that is close-on-exec); reaped by a thread of its own.
  private static func spawnSleeper(holding descriptor: Int32?) throws -> pid_t {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    // A copy above 3 first: a dup2 onto itself would leave the descriptor close-on-exec.
    let source = descriptor.map { fcntl($0, F_DUPFD_CLOEXEC, 10) }
    defer { if let source, source >= 0 { close(source) } }
    if let source {
      guard source >= 0 else { throw HarnessError("cannot copy the descriptor: \(errno)") }
      posix_spawn_file_actions_adddup2(&actions, source, 3)
    }
    var child: pid_t = 0
    let argv: [UnsafeMutablePointer<CChar>?] = [strdup("/bin/sleep"), strdup("30"), nil]
    defer { for pointer in argv { free(pointer) } }
    let status = posix_spawn(&child, "/bin/sleep", &actions, nil, argv, environ)
    guard status == 0 else { throw HarnessError("posix_spawn failed: \(status)") }
    let spawned = child
    Thread.detachNewThread {
      var status: Int32 = 0
      waitpid(spawned, &status, 0)
    }
    return child
  }

}

/// A Unix socket listening in a temporary directory, and clients of it.
private struct Listening {
  let listener: Int32
  let path: String

  init() throws {
    path = try DaemonHarness.temporaryDirectory() + "/accept.sock"
    listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard listener >= 0 else { throw HarnessError("socket() failed: \(errno)") }
    var address = Self.address(path)
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
    }
    guard bound == 0, listen(listener, 4) == 0 else { throw HarnessError("cannot listen on \(path): \(errno)") }
  }

  /// A connected client, close-on-exec.
  func connect() throws -> Int32 {
    try RawSocket.connectedDescriptor(to: path)
  }

  private static func address(_ path: String) -> sockaddr_un {
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { buffer in
      for (offset, byte) in path.utf8.enumerated() { buffer[offset] = byte }
    }
    return address
  }
}
