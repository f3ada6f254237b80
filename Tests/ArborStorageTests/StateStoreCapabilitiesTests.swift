import Arbor
import ArborJSON
import ArborStorage
import ArborTesting
import StoreDoubles
import Foundation
import Testing

/// What a backend can do beyond keeping one daemon's state is asked of the store, never
/// found by casting it to a backend: a store that says nothing can do nothing more, one
/// that says it is shared is found through the abstraction, and what a backend repaired at
/// opening travels with the recovery.
@Suite struct StateStoreCapabilitiesTests {
  @Test func aStoreOneDaemonOwnsOffersNoLeadershipRelayOrForwarding() {
    let store: any StateStore = MemoryStore()
    #expect(store.leadership == nil)
    #expect(store.eventRelay == nil)
    #expect(store.intentForwarding == nil)
  }

  @Test func aSharedStoreIsFoundThroughTheAbstraction() async throws {
    let shared = SharedMemoryStore()
    let store: any StateStore = shared
    let leadership = try #require(store.leadership)
    #expect(!leadership.isLeading)
    #expect(try await leadership.tryToLead())
    #expect(leadership.isLeading && leadership.term == 1)
    #expect(await leadership.leaderHolder()?.holder == "memory leader")
    await leadership.stepDown()
    #expect(!leadership.isLeading)
    // What it does not say it can do stays at the default.
    #expect(store.eventRelay == nil)
    #expect(store.intentForwarding == nil)
  }

  @Test func aRecoveryCarriesNoWarningsUnlessTheBackendAddsThem() throws {
    var recovery = try MemoryStore().recover()
    #expect(recovery.warnings.isEmpty)
    recovery.warnings.append("the last transaction was cut short and dropped")
    #expect(recovery.warnings.count == 1)
  }

  @Test func wakeupsEndWhenCancelled() async throws {
    let (stream, wake) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
    let wakeups = StoreWakeups(stream: stream) { wake.finish() }
    wake.yield()
    wake.yield()
    try await withDeadline("the wake-ups to end once cancelled") {
      var count = 0
      for await _ in wakeups.stream {
        count += 1
        wakeups.cancel()
      }
      // Two wake-ups while nobody read are one.
      #expect(count == 1)
    }
  }

  @Test func aSnapshotRecordIsHandedToTheBackendEncodedOnce() async throws {
    let store = MemoryStore()
    let record = SnapshotRecord(
      root: "AppModel", schema: "sha256:one", revision: 4, createdAt: Date(timeIntervalSince1970: 1_700_000_000), state: ["count": 4])
    try await store.saveSnapshot(record)
    let bytes = try #require(store.contents.withLock { $0.snapshots[4] })
    #expect(bytes == (try record.encodedBytes()))
    #expect(try JSONValueDecoder().decode(SnapshotRecord.self, from: JSONValue(parsing: bytes)) == record)
  }
}
