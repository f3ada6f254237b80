import Arbor
import ArborJSON
import ArborTesting
import ConcurrencyExtras
import Dispatch
import Synchronization
import Testing

/// `ModelAnchor.listen`: change sets handed to a synchronous listener on the committing
/// thread, in order, one call at a time.
@Suite struct ChangeSetListenerTests {
  @Test func concurrentWritersOnThreadsOfTheirOwnAreDeliveredInOrderOneCallAtATime() async throws {
    let (branch, anchor) = Branch(name: "r", leaves: (0..<4).map { Leaf(value: $0) }).andAnchor()
    let start = try anchor.state()
    let document = LockIsolated(start.value)
    let revisions = LockIsolated<[UInt64]>([])
    let inside = Atomic<Int>(0)
    let overlapped = Atomic<Bool>(false)
    let listener = anchor.listen { delivery in
      if inside.wrappingAdd(1, ordering: .sequentiallyConsistent).oldValue != 0 { overlapped.store(true, ordering: .sequentiallyConsistent) }
      defer { inside.wrappingSubtract(1, ordering: .sequentiallyConsistent) }
      guard case .committed(let changeSet) = delivery else { return }
      revisions.withValue { $0.append(changeSet.revision) }
      document.withValue { $0 = (try? changeSet.patch.apply(to: $0)) ?? .null }
    }
    let writes = 300
    try await withThrowingTaskGroup(of: Void.self) { group in
      for leaf in branch.leaves {
        group.addTask {
          try await OtherThread.run("a writer thread") {
            for _ in 0..<writes { leaf.value += 1 }
          }
        }
      }
      try await group.waitForAll()
    }
    // Every writer has returned: each delivered its own change sets or saw them delivered.
    let total = UInt64(4 * writes)
    #expect(revisions.value == Array((start.revision + 1)...(start.revision + total)))
    #expect(overlapped.load(ordering: .sequentiallyConsistent) == false, "two calls of the listener ran at once")
    #expect(document.value == (try anchor.state()).value, "the patches applied in order give the state")
    listener.cancel()
  }

  @Test func aListenerSeesOnlyLaterRevisionsAndStopsWhenCancelledOrReleased() throws {
    let (leaf, anchor) = Leaf().andAnchor()
    leaf.value = 1
    let seen = LockIsolated<[UInt64]>([])
    var listener: ChangeSetListener? = anchor.listen { delivery in
      if case .committed(let changeSet) = delivery { seen.withValue { $0.append(changeSet.revision) } }
    }
    leaf.value = 2
    leaf.value = 3
    #expect(seen.value == [2, 3], "delivered before the write returned")
    listener = nil
    leaf.value = 4
    #expect(seen.value == [2, 3], "a released listener is not called")
    _ = listener

    let other = anchor.listen { delivery in
      if case .committed(let changeSet) = delivery { seen.withValue { $0.append(changeSet.revision) } }
    }
    leaf.value = 5
    other.cancel()
    leaf.value = 6
    #expect(seen.value == [2, 3, 5], "a cancelled listener is not called")
  }

  @Test func aListenerThatFallsBehindIsToldOnceAndDropped() async throws {
    let (leaf, anchor) = Leaf().andAnchor()
    let calls = Atomic<Int>(0)
    let log = LockIsolated<[String]>([])
    let entered = DispatchSemaphore(value: 0)
    let release = DispatchSemaphore(value: 0)
    let listener = anchor.listen(limit: 1) { delivery in
      switch delivery {
      case .committed(let changeSet): log.withValue { $0.append("committed \(changeSet.revision)") }
      case .overflowed: log.withValue { $0.append("overflowed") }
      }
      if calls.wrappingAdd(1, ordering: .sequentiallyConsistent).oldValue == 0 {
        // The first call holds its thread: the next commits queue up behind it.
        entered.signal()
        release.wait()
      }
    }
    let writer = Task {
      try await OtherThread.run("the first writer, held by the listener") { leaf.value = 1 }
    }
    let didEnter = try await OtherThread.run("the listener to be called") { entered.wait(timeout: .now() + 20) == .success }
    #expect(didEnter)
    leaf.value = 2  // queued behind the call in progress
    leaf.value = 3  // two waiting, over the limit of 1
    #expect(log.value == ["committed 1", "overflowed"])
    release.signal()
    try await writer.value
    leaf.value = 4
    #expect(log.value == ["committed 1", "overflowed"], "nothing is delivered after the overflow")
    listener.cancel()
  }
}
