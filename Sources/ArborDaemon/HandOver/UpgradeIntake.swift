import ArborSystemd
import Foundation
import Logging

#if canImport(Glibc)
  import Glibc
#endif

/// The new process's side of an upgrade (``DaemonUpgrade``): started with
/// ``DaemonUpgrade/variable`` naming its end of the socket pair, it says it is ready, takes
/// the descriptors the old process hands over (the listening socket, the connections, the
/// hand-over's state) and waits until the old process has exited, before it opens
/// anything of the state's. The descriptors then go the way systemd's would.
///
/// ```swift
/// let passed = ListenSockets.take() + (try await UpgradeIntake.take(logger: logger))
/// ```
enum UpgradeIntake {
  /// The name the listening socket is passed under.
  static let listenerName = "upgrade-socket"
  /// How long the old process may take to hand over, and then to exit.
  static let handOverLimit = Duration.seconds(120)

  /// The descriptors an upgrade passed to this process; none when it was not started by
  /// one. Throws when the old process ended before it handed over.
  static func take(logger: Logger) async throws -> [ListenSockets.Socket] {
    guard let value = getenv(DaemonUpgrade.variable), let socket = Int32(String(cString: value)) else { return [] }
    unsetenv(DaemonUpgrade.variable)
    _ = fcntl(socket, F_SETFD, FD_CLOEXEC)
    defer { close(socket) }
    let received: Result<[ListenSockets.Socket], DescriptorPassing.Failure> = await StoreCall.run {
      Result { () throws(DescriptorPassing.Failure) in try handOver(on: socket) }
    }
    let sockets: [ListenSockets.Socket]
    do {
      sockets = try received.get()
    } catch {
      throw DaemonStartError("cannot take over from the daemon that started this one: \(error)")
    }
    logger.info("took \(sockets.count) descriptors from the daemon that started this one, which has exited")
    return sockets
  }

  /// Says ready, receives until `done`, then waits for the end of the socket (the old
  /// process exited, its state directory's lock released). Blocks its thread.
  private static func handOver(on socket: Int32) throws(DescriptorPassing.Failure) -> [ListenSockets.Socket] {
    try DescriptorPassing.send(socket, payload: UpgradeMessage(ready: true).bytes)
    var sockets: [ListenSockets.Socket] = []
    var done = false
    let deadline = ContinuousClock.now + handOverLimit
    while true {
      let left = deadline - ContinuousClock.now
      var poller = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
      guard left > .zero, poll(&poller, 1, Int32(left.components.seconds * 1000 + 1)) > 0 else {
        throw DescriptorPassing.Failure(description: done ? "it did not exit within \(handOverLimit)" : "it did not hand over within \(handOverLimit)")
      }
      guard let message = try DescriptorPassing.receive(socket) else {
        if done { return sockets }
        for passed in sockets { close(passed.descriptor) }
        throw DescriptorPassing.Failure(description: "it ended before it handed over")
      }
      guard let decoded = try? UpgradeMessage(bytes: message.payload), !done else {
        for descriptor in message.descriptors { close(descriptor) }
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
