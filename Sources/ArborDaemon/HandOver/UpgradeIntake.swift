import ArborSystemd
import ArborStorage
import Foundation
import Logging

#if canImport(Glibc)
  import Glibc
#endif

/// The new process's side of an upgrade (``DaemonUpgrade``): started with
/// ``DaemonUpgrade/variable`` naming its end of the socket pair, it first checks that it
/// can restore the old process's state (its snapshot record, decoded and migrated as a
/// start would, with no model run) and says it is ready, or why it cannot and exits, the
/// old process serving on. Then it takes the descriptors the old process hands over (the
/// listening socket, the connections, the hand-over's state) and waits until the old
/// process has let go of its state directory's lock, or has exited, before it opens
/// anything of the state's. The descriptors then go the way systemd's would.
///
/// ```swift
/// let passed = ListenSockets.take() + (try await UpgradeIntake.take(logger: logger) { try AppModel.checkRestorable($0) })
/// ```
enum UpgradeIntake {
  /// The name the listening socket is passed under.
  static let listenerName = "upgrade-socket"
  /// How long the old process may take to hand over, and then to exit.
  static let handOverLimit = Duration.seconds(120)

  /// The descriptors an upgrade passed to this process; none when it was not started by
  /// one. `check` is given the old process's encoded snapshot record and throws when this
  /// process cannot restore it (another root, a schema it cannot migrate): then the old
  /// process is told why and serves on, and this throws. Throws too when the old process
  /// ended before it handed over.
  static func take(logger: Logger, check: @escaping @Sendable (Data) throws -> Void) async throws -> [ListenSockets.Socket] {
    guard let value = getenv(DaemonUpgrade.variable), let socket = Int32(String(cString: value)) else { return [] }
    unsetenv(DaemonUpgrade.variable)
    _ = fcntl(socket, F_SETFD, FD_CLOEXEC)
    return try await take(from: socket, logger: logger, check: check)
  }

  /// The same from the socket pair's end `socket`, which this closes.
  static func take(from socket: Int32, logger: Logger, check: @escaping @Sendable (Data) throws -> Void) async throws -> [ListenSockets.Socket] {
    defer { close(socket) }
    let received: Result<(sockets: [ListenSockets.Socket], released: Bool), DescriptorPassing.Failure> = await StoreCall.run {
      Result { () throws(DescriptorPassing.Failure) in
        try checkState(on: socket, check)
        return try handOver(on: socket)
      }
    }
    let sockets: [ListenSockets.Socket]
    let released: Bool
    do {
      (sockets, released) = try received.get()
    } catch {
      throw DaemonStartError("cannot take over from the daemon that started this one: \(error)")
    }
    logger.info(
      "took \(sockets.count) descriptors from the daemon that started this one, which \(released ? "let go of the state directory" : "has exited")")
    return sockets
  }

  /// Waits for the old process's state, and says ready when `check` takes it, or why not
  /// (then throws). Blocks its thread.
  private static func checkState(on socket: Int32, _ check: (Data) throws -> Void) throws(DescriptorPassing.Failure) {
    guard DescriptorPassing.readable(socket, within: handOverLimit) else {
      throw DescriptorPassing.Failure(description: "it did not send its state within \(handOverLimit)")
    }
    guard let message = try DescriptorPassing.receive(socket) else {
      throw DescriptorPassing.Failure(description: "it ended before it sent its state")
    }
    defer { for descriptor in message.descriptors { close(descriptor) } }
    guard (try? UpgradeMessage(bytes: message.payload))?.state == true, let file = message.descriptors.first else {
      throw DescriptorPassing.Failure(description: "it sent \(String(decoding: message.payload.prefix(200), as: UTF8.self)) instead of its state")
    }
    let refusal: String?
    do {
      try check(Data(try MemoryFile.contents(of: file)))
      refusal = nil
    } catch {
      refusal = "\(error)"
    }
    guard let refusal else {
      try DescriptorPassing.send(socket, payload: UpgradeMessage(ready: true).bytes)
      return
    }
    try DescriptorPassing.send(socket, payload: UpgradeMessage(refused: "cannot restore its state: \(refusal)").bytes)
    throw DescriptorPassing.Failure(description: "this process cannot restore its state (\(refusal)); it serves on")
  }

  /// Receives until `done`, then waits for `released` (the old process let go of its state
  /// directory's lock) or the end of the socket (it exited). Blocks its thread.
  private static func handOver(on socket: Int32) throws(DescriptorPassing.Failure) -> (sockets: [ListenSockets.Socket], released: Bool) {
    var sockets: [ListenSockets.Socket] = []
    var done = false
    let deadline = ContinuousClock.now + handOverLimit
    while true {
      guard DescriptorPassing.readable(socket, within: deadline - ContinuousClock.now) else {
        throw DescriptorPassing.Failure(description: done ? "it did not exit within \(handOverLimit)" : "it did not hand over within \(handOverLimit)")
      }
      guard let message = try DescriptorPassing.receive(socket) else {
        if done { return (sockets, false) }
        for passed in sockets { close(passed.descriptor) }
        throw DescriptorPassing.Failure(description: "it ended before it handed over")
      }
      let decoded = try? UpgradeMessage(bytes: message.payload)
      guard let decoded, !done else {
        for descriptor in message.descriptors { close(descriptor) }
        if done && decoded?.released == true { return (sockets, true) }
        continue
      }
      if let names = decoded.names {
        for (name, descriptor) in zip(names, message.descriptors) {
          sockets.append(ListenSockets.Socket(descriptor: descriptor, name: name))
        }
        for descriptor in message.descriptors.dropFirst(names.count) { close(descriptor) }
      }
      if decoded.done == true { done = true }
    }
  }
}
