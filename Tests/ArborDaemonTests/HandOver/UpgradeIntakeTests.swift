import ArborStorage
import Foundation
import Logging
import Synchronization
import Testing

@testable import ArborDaemon

#if canImport(Glibc)
  import Glibc
#endif

/// The new process's side of an upgrade, with this test playing the old process on the
/// other end of the socket pair: the new process opens the state as soon as the old one
/// says it let go of the state directory, and otherwise only once the old one has ended.
@Suite struct UpgradeIntakeTests {
  /// The old process's part up to `{"done":true}`: its state, the wait for `ready`, one
  /// descriptor (a pipe's end) under the name `connection-1`.
  static func handOverUntilDone(on socket: Int32) throws {
    let state = try MemoryFile.holding(Array(#"{"revision":1}"#.utf8), name: "state")
    defer { close(state) }
    try DescriptorPassing.send(socket, payload: UpgradeMessage(state: true).bytes, descriptors: [state])
    guard DescriptorPassing.readable(socket, within: .seconds(30)), let answer = try DescriptorPassing.receive(socket) else {
      throw Unexpected("the new process said nothing within 30 s")
    }
    let said = try UpgradeMessage(bytes: answer.payload)
    guard said == UpgradeMessage(ready: true) else { throw Unexpected("the new process said \(said) instead of ready") }
    var ends: [Int32] = [-1, -1]
    guard pipe(&ends) == 0 else { throw Unexpected("pipe failed") }
    defer { ends.forEach { close($0) } }
    try DescriptorPassing.send(socket, payload: UpgradeMessage(names: ["connection-1"]).bytes, descriptors: [ends[0]])
    try DescriptorPassing.send(socket, payload: UpgradeMessage(done: true).bytes)
  }

  struct Unexpected: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
  }

  /// Set once the intake returned.
  final class Finished: Sendable {
    private let flag = Atomic<Bool>(false)
    var isSet: Bool { flag.load(ordering: .acquiring) }
    func set() { flag.store(true, ordering: .releasing) }
  }

  static func intake(on socket: Int32, finished: Finished? = nil) -> Task<[String], any Error> {
    Task {
      let sockets = try await UpgradeIntake.take(from: socket, logger: Logger(label: "test")) { _ in }
      finished?.set()
      for socket in sockets { close(socket.descriptor) }
      return sockets.map(\.name)
    }
  }

  @Test func theNewProcessGoesOnOnceTheOldOneLetGoOfTheStateDirectory() async throws {
    let (old, new) = try DescriptorPassing.pair()
    defer { close(old) }
    let taken = Self.intake(on: new)
    try await StoreCall.run {
      try Self.handOverUntilDone(on: old)
      try DescriptorPassing.send(old, payload: UpgradeMessage(released: true).bytes)
    }
    // The old end stays open: the old process is still letting go of its tree.
    #expect(try await taken.value == ["connection-1"])
  }

  @Test func withoutThatItWaitsForTheOldProcessToEnd() async throws {
    let (old, new) = try DescriptorPassing.pair()
    let finished = Finished()
    let taken = Self.intake(on: new, finished: finished)
    try await StoreCall.run { try Self.handOverUntilDone(on: old) }
    try await Task.sleep(for: .milliseconds(300))
    #expect(!finished.isSet, "the new process went on while the old one held the state directory")
    close(old)
    #expect(try await taken.value == ["connection-1"])
  }

  @Test func aReleaseBeforeTheEndOfTheHandOverIsNotTaken() async throws {
    // `released` before `done` is out of order: the descriptors after it still come.
    let (old, new) = try DescriptorPassing.pair()
    let finished = Finished()
    let taken = Self.intake(on: new, finished: finished)
    try await StoreCall.run {
      let state = try MemoryFile.holding(Array("{}".utf8), name: "state")
      defer { close(state) }
      try DescriptorPassing.send(old, payload: UpgradeMessage(state: true).bytes, descriptors: [state])
      _ = DescriptorPassing.readable(old, within: .seconds(30))
      _ = try DescriptorPassing.receive(old)
      try DescriptorPassing.send(old, payload: UpgradeMessage(released: true).bytes)
    }
    try await Task.sleep(for: .milliseconds(300))
    #expect(!finished.isSet, "the new process went on before the hand-over was done")
    try await StoreCall.run {
      try DescriptorPassing.send(old, payload: UpgradeMessage(done: true).bytes)
      try DescriptorPassing.send(old, payload: UpgradeMessage(released: true).bytes)
    }
    #expect(try await taken.value == [])
    close(old)
  }
}
