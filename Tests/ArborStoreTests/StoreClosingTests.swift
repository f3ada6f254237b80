import ArborStore
import ArborTesting
import Foundation
import Synchronization
import Testing

/// Reads racing the store's close: each finishes, or is refused with a clear error, and
/// none reaches a connection the close has shut. GRDB's own close does not wait for a read
/// that has just found the pool open; such a read called SQLite without a connection, and
/// the process died (a daemon stopping while its journal read the snapshots' revisions).
@Suite struct StoreClosingTests {
  /// How a reader that read until it was refused ended.
  struct Outcome: Sendable {
    var reads = 0
    var error: StoreError?
  }

  /// Runs `body` on a thread of its own (it blocks in SQLite), within a deadline.
  func onThread<T: Sendable>(_ what: String, _ body: @escaping @Sendable () -> T) async throws -> T {
    try await withDeadline(what) {
      await withCheckedContinuation { continuation in
        Thread { continuation.resume(returning: body()) }.start()
      }
    }
  }

  @Test func readsUnderWayWhileTheStoreClosesFinishOrAreRefused() async throws {
    let directory = NSTemporaryDirectory() + "arbor-store-closing-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: directory) }

    for round in 0..<20 {
      let store = try Store.open(at: directory + "/round-\(round).sqlite", root: "AppModel", schema: "sha256:one", fsync: .off)
      let reading = LockedFlag()
      let readUntilRefused: @Sendable () -> Outcome = {
        var outcome = Outcome()
        while outcome.reads < 1_000_000 {
          do {
            _ = try store.snapshotRevisions()
            outcome.reads += 1
            reading.set()
          } catch let error as StoreError {
            outcome.error = error
            return outcome
          } catch {
            outcome.error = StoreError(.io, path: "", "not a StoreError: \(error)")
            return outcome
          }
        }
        return outcome
      }
      async let first = onThread("the first reader to be refused", readUntilRefused)
      async let second = onThread("the second reader to be refused", readUntilRefused)
      // Close while they read.
      let started = await expectEventually("a reader to read") { reading.isSet }
      await store.close()
      let outcomes = try await [first, second]
      for outcome in outcomes {
        #expect(outcome.error?.kind == .cancelled, "round \(round): a read after the close: \(String(describing: outcome.error))")
        #expect(outcome.error?.message.contains("the store is closed") == true)
      }
      #expect(started)
      #expect(outcomes.map(\.reads).reduce(0, +) > 0, "round \(round): the readers read before the close")
    }
  }
}

/// A flag one thread sets and another reads.
final class LockedFlag: Sendable {
  private let value = Atomic<Bool>(false)

  func set() { value.store(true, ordering: .releasing) }
  var isSet: Bool { value.load(ordering: .acquiring) }
}
