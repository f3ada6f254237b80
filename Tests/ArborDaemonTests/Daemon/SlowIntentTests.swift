import ArborClient
import ArborJSON
import ArborRPC
import ArborTesting
import Foundation
import ProcessSlots
import Testing

/// A synchronous intent runs to its end on its connection's event loop, under the tree's
/// lock: a slow one delays the others by at most its own duration, never more, and the log
/// names it.
@Suite(.startsProcesses) struct SlowIntentTests {
  @Test func aLongSynchronousIntentDelaysOtherConnectionsByAtMostItsDuration() async throws {
    let hold = 400
    // Two loops: the other connections may share the slow one's loop or not.
    try await withDaemon(binary: DaemonHarness.fixtureBinary(), arguments: ["--event-loops", "2"]) { daemon, _ in
      let slow = try await daemon.connect()
      let others = try await (0..<4).asyncMap { _ in try await daemon.connect() }
      async let held: (JSONValue, ContinuousClock.Instant) = {
        let reply = try await slow.call("intent.call", ["intent": "hold", "params": ["milliseconds": .int(Int64(hold))]])
        return (reply, ContinuousClock.now)
      }()
      try await Task.sleep(for: .milliseconds(50))
      // Each other client: a read and a write while the tree is held.
      let ends = try await withThrowingTaskGroup(of: (Duration, ContinuousClock.Instant).self) { group in
        for client in others {
          group.addTask {
            let start = ContinuousClock.now
            _ = try await client.call("state.get")
            _ = try await client.call("daemon.status")
            return (ContinuousClock.now - start, ContinuousClock.now)
          }
        }
        return try await group.reduce(into: [(Duration, ContinuousClock.Instant)]()) { $0.append($1) }
      }
      let (reply, slowEnded) = try await held
      #expect(reply["revision"] == 1)
      let longest = try #require(ends.map(\.0).max())
      let latest = try #require(ends.map(\.1).max())
      // The bound is the slow intent itself: the others are done right after it, never
      // queued behind more than it. (Measured from its end, so a busy machine's slowness
      // in running the test itself does not count.)
      let after = latest - slowEnded
      // The same requests with nothing held: what this machine takes now, busy or not.
      let quiet = try await withThrowingTaskGroup(of: Duration.self) { group in
        for client in others {
          group.addTask {
            let start = ContinuousClock.now
            _ = try await client.call(.stateGet)
            _ = try await client.call(.status)
            return ContinuousClock.now - start
          }
        }
        return try await group.reduce(Duration.zero) { max($0, $1) }
      }
      print(
        "slow intent of \(hold) ms: the other clients waited at most \(longest.formatted(.units(allowed: [.milliseconds]))), done \(after.formatted(.units(allowed: [.milliseconds]))) after it (the same requests alone: \(quiet.formatted(.units(allowed: [.milliseconds]))))"
      )
      #expect(after < .milliseconds(300) + quiet * 3, "another client was done \(after) after the slow intent of \(hold) ms (alone they take \(quiet))")
      try await eventually("the log to name the slow intent") {
        daemon.log.contains("the synchronous intent hold on the root ran for") && daemon.log.contains("make it async")
      }
    }
  }
}
