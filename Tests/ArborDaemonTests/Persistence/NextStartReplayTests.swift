import Testing

@testable import ArborDaemon

/// A hand-over saves no final snapshot only when the next start replays little and does
/// not compact before it serves.
@Suite struct NextStartReplayTests {
  @Test func aJournalTheCompactionsKeptShortNeedsNoFinalSnapshot() {
    #expect(NextStartReplay.isShort(revision: 12_000, lastSnapshot: 10_000, oldestSnapshot: 9_000, history: 1_000, snapshotEvery: 10_000))
    #expect(NextStartReplay.isShort(revision: 5, lastSnapshot: 5, oldestSnapshot: 0, history: 1_000, snapshotEvery: 10_000))
    // No snapshot yet kept: the fresh start's own is the base.
    #expect(NextStartReplay.isShort(revision: 3, lastSnapshot: 0, oldestSnapshot: nil, history: 1_000, snapshotEvery: 10_000))
  }

  @Test func aCompactionThatFellBehindMakesTheStopSave() {
    // More than --snapshot-every revisions after the last snapshot.
    #expect(!NextStartReplay.isShort(revision: 20_001, lastSnapshot: 10_000, oldestSnapshot: 9_000, history: 1_000, snapshotEvery: 10_000))
    #expect(!NextStartReplay.isShort(revision: 104, lastSnapshot: 100, oldestSnapshot: 100, history: 0, snapshotEvery: 3))
  }

  @Test func neverMoreThanTheLimitWhateverSnapshotEverySays() {
    let every = 1_000_000
    #expect(NextStartReplay.isShort(revision: 10_000, lastSnapshot: 0, oldestSnapshot: 0, history: 0, snapshotEvery: every))
    #expect(!NextStartReplay.isShort(revision: 10_001, lastSnapshot: 0, oldestSnapshot: 0, history: 0, snapshotEvery: every))
  }

  @Test func aJournalTheNextStartWouldCompactMakesTheStopSave() {
    // The oldest snapshot more than --history + --snapshot-every behind: the next start
    // would save a snapshot before it serves (StartUpkeep.boundJournal).
    #expect(!NextStartReplay.isShort(revision: 11_026, lastSnapshot: 1_276, oldestSnapshot: 1, history: 1_000, snapshotEvery: 10_000))
    #expect(NextStartReplay.isShort(revision: 11_001, lastSnapshot: 1_276, oldestSnapshot: 1, history: 1_000, snapshotEvery: 10_000))
  }
}
