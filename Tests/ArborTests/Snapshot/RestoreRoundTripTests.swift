import Arbor
import ArborTesting
import Foundation
import Testing

/// Driving the same operations on a live tree and on a tree restored from its snapshot
/// gives equal states.
@Suite struct RestoreRoundTripTests {
  static var runs: Int { Int(ProcessInfo.processInfo.environment["ARBOR_ROUNDTRIP_RUNS"] ?? "") ?? 60 }

  /// 60 runs of 120 steps, several seconds of computing without a suspension point: on a
  /// thread of its own, not on the cooperative pool that the other tests share.
  @Test func aDeepGeneratedTreeRestoresAndGoesOnTheSame() async throws {
    try await onOwnThread("RestoreRoundTripTests runs") {
      var snapshotSteps: Set<Int> = []
      for seed in 1...UInt64(Self.runs) {
        let outcome = try RestoreRoundTrip.run(seed: seed, steps: 120, root: { Forest() }, step: randomForestStep)
        #expect(outcome.mismatch == nil, "seed \(seed), snapshot after step \(outcome.snapshotStep): \(outcome.mismatch ?? "")")
        #expect(outcome.revisions.live - outcome.snapshotRevision == outcome.revisions.restored - outcome.snapshotRevision)
        snapshotSteps.insert(outcome.snapshotStep)
      }
      #expect(snapshotSteps.count > Self.runs / 3, "snapshots were taken at many different steps")
    }
  }
}
