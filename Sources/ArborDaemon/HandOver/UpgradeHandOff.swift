import ArborLocking
import ArborStorage
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// The old process's side of an upgrade under way (``DaemonUpgrade``): the new process
/// runs and is ready; the stop's hand-over (``ConnectionHandOver``) keeps its descriptors
/// here, the listening socket first, and ``finish(lettingGo:)`` sends them all to the new process
/// over their socket pair.
///
/// ```swift
/// if let upgrade = UpgradeHandOff.current { _ = await ConnectionHandOver.handOver(parts, to: upgrade); await upgrade.finish(lettingGo: parts.letGoOfStateDirectory) }
/// ```
final class UpgradeHandOff: DescriptorKeeper {
  /// The upgrade under way in this process, if any.
  static var current: UpgradeHandOff? { under.withLock { $0 } }
  private static let under = LockedState<UpgradeHandOff?>(nil)

  /// The new process.
  let pid: pid_t
  /// This process's end of the socket pair.
  private let socket: Int32
  /// Duplicates of what is handed over, by name, in the order they were kept.
  private let kept = LockedState<[(name: String, descriptor: Int32)]>([])

  init(pid: pid_t, socket: Int32) {
    self.pid = pid
    self.socket = socket
  }

  /// Makes this the upgrade under way: the daemon's stop hands over to it.
  func begin() { Self.under.withLock { $0 = self } }

  var capacity: Int { DescriptorBudget.shared.limit }

  func store(_ descriptor: Int32, name: String) -> Bool {
    let duplicate = fcntl(descriptor, F_DUPFD_CLOEXEC, 3)
    guard duplicate >= 0 else { return false }
    kept.withLock { $0.append((name, duplicate)) }
    return true
  }

  @discardableResult func removeStored(name: String) -> Bool {
    let removed = kept.withLock { kept -> [Int32] in
      defer { kept.removeAll { $0.name == name } }
      return kept.filter { $0.name == name }.map(\.descriptor)
    }
    for descriptor in removed { close(descriptor) }
    return !removed.isEmpty
  }

  /// Sends what was kept, in messages of at most ``DescriptorPassing/descriptorsPerMessage``
  /// descriptors with their names, then the end; closes this side's copies. Then, when
  /// this process holds the state directory (`letGo`: it closes the store and releases
  /// the lock), lets go of it and says so: the new process opens the store at once instead
  /// of waiting for this one to exit (letting go of a large tree and ending a process take
  /// 20–130 ms that no client should wait for). Whether the new process got it all (it
  /// exits, and its clients' connections end, when it did not).
  func finish(lettingGo letGo: (@Sendable () async -> Void)? = nil) async -> Bool {
    let all = kept.withLock { kept in
      defer { kept = [] }
      return kept
    }
    let socket = self.socket
    let sent: Result<Void, DescriptorPassing.Failure> = await StoreCall.run {
      Result { () throws(DescriptorPassing.Failure) in
        for start in stride(from: 0, to: all.count, by: DescriptorPassing.descriptorsPerMessage) {
          let part = all[start..<min(all.count, start + DescriptorPassing.descriptorsPerMessage)]
          let names = UpgradeMessage(names: part.map(\.name))
          try DescriptorPassing.send(socket, payload: names.bytes, descriptors: part.map(\.descriptor))
        }
        try DescriptorPassing.send(socket, payload: UpgradeMessage(done: true).bytes)
      }
    }
    for entry in all { close(entry.descriptor) }
    if case .failure = sent { return false }
    guard let letGo else { return true }
    await letGo()
    let said: Result<Void, DescriptorPassing.Failure> = await StoreCall.run {
      Result { () throws(DescriptorPassing.Failure) in try DescriptorPassing.send(socket, payload: UpgradeMessage(released: true).bytes) }
    }
    if case .failure = said { return false }
    return true
  }
}

/// What the two processes of an upgrade say to each other, one JSON object a message, in
/// this order:
/// 1. `{"state":true}` from the old one, with a memory file holding its snapshot record;
/// 2. `{"ready":true}` from the new one once it could decode (and migrate) that state, or
///    `{"refused":"…"}` saying why it cannot, and it exits;
/// 3. `{"names":[…]}` with as many descriptors, then `{"done":true}`, from the old one;
/// 4. `{"released":true}` from the old one once it let go of the state directory's lock
///    (a store with no lock: never; the new process then waits for the old one's exit).
struct UpgradeMessage: Codable, Sendable, Equatable {
  var state: Bool? = nil
  var ready: Bool? = nil
  var refused: String? = nil
  var names: [String]? = nil
  var done: Bool? = nil
  var released: Bool? = nil

  var bytes: [UInt8] { Array((try? JSONEncoder().encode(self)) ?? Data()) }
}

extension UpgradeMessage {
  init(bytes: [UInt8]) throws {
    self = try JSONDecoder().decode(Self.self, from: Data(bytes))
  }
}
