import ArborClient
import ArborJSON
import ArborTesting
import Foundation
import ProcessSlots
import Synchronization
import Testing

/// `state.restore` racing with intents and with another restore on both event loops: no
/// revision is named twice,
/// and every revision an intent's reply names is that intent's in the journal.
@Suite(.startsProcesses) struct RestoreRaceTests {
  @Test func aRestoreRacingWithIntentsNeverReusesARevision() async throws {
    try await withDaemon(arguments: ["--event-loops", "2", "--history", "1000000"]) { daemon, _ in
      let setup = try await daemon.connect()
      for _ in 0..<2 { try await setup.call("intent.call", ["intent": "addButtonTapped"]) }
      let record = try await setup.call("state.snapshot")
      let stop = Flag()
      let superseded = Counter()
      // Two writers, each on its own connection (the daemon spreads them over its loops).
      let writers = try await (0..<2).asyncMap { _ in try await daemon.connect() }
      async let written: [[(UInt64, Int)]] = withThrowingTaskGroup(of: [(UInt64, Int)].self) { group in
        for (row, client) in writers.enumerated() {
          group.addTask {
            var named: [(UInt64, Int)] = []
            while !stop.isSet {
              do {
                let reply = try await client.call("intent.call", ["target": .string("/counters/\(row)/counter"), "intent": "incrementTapped"])
                named.append((UInt64(reply["revision"]?.intValue ?? -1), row))
              } catch let error as ArborClientError where error.rpcError?.is(.superseded) == true {
                // It wrote to the tree the restore replaced: discarded, and said so.
                superseded.increment()
              }
            }
            return named
          }
        }
        return try await group.reduce(into: []) { $0.append($1) }
      }
      // Two restorers, on two connections of their own, racing each other too.
      let restorers = try await (0..<2).asyncMap { _ in try await daemon.connect() }
      let restores = try await withThrowingTaskGroup(of: [UInt64].self) { group in
        for restorer in restorers {
          group.addTask {
            var named: [UInt64] = []
            for _ in 0..<25 {
              try await Task.sleep(for: .milliseconds(2))
              let restored = try await restorer.call(.stateRestore, ["record": record])
              named.append(UInt64(restored["revision"]?.intValue ?? -1))
            }
            return named
          }
        }
        return try await group.reduce(into: [UInt64]()) { $0 += $1 }
      }
      stop.set()
      let intents = try await written.flatMap { $0 }
      let all = intents.map(\.0) + restores
      #expect(Set(all).count == all.count, "\(all.count - Set(all).count) revisions were named twice")
      let journal = Dictionary(try await CrashTests.journal(setup, since: 0).map { ($0.revision, $0) }, uniquingKeysWith: { first, _ in first })
      var wrong: [String] = []
      for (revision, row) in intents {
        guard let entry = journal[revision] else { continue }
        if entry.intent != "incrementTapped" || entry.counter != row {
          wrong.append("revision \(revision), named to row \(row), is \(entry.intent) of row \(entry.counter.map(String.init) ?? "-")")
        }
      }
      #expect(wrong.isEmpty, "\(wrong.count) replies named another write: \(wrong.prefix(5))")
      print("restore race: \(intents.count) intents, \(restores.count) restores, \(superseded.value) intents superseded by a restore")
    }
  }
}

/// A flag set once, read from any task.
final class Flag: Sendable {
  private let value = Atomic<Bool>(false)
  var isSet: Bool { value.load(ordering: .acquiring) }
  func set() { value.store(true, ordering: .releasing) }
}

/// A count shared by tasks.
final class Counter: Sendable {
  private let count = Atomic<Int>(0)
  var value: Int { count.load(ordering: .acquiring) }
  func increment() { count.add(1, ordering: .relaxed) }
}
