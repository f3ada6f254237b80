import Arbor
import ArborTesting
import Testing

/// Change-set and event subscriptions are bounded, and one consumer at a time.
@Suite struct SubscriptionTests {
  @Test func aConsumerThatFallsBehindGetsOverflowAndTheStreamEnds() async throws {
    let (leaf, anchor) = Leaf().andAnchor()
    let changes = DeadlineIterator(anchor.changeSets(limit: 5))
    for value in 1...6 { leaf.value = value }  // one more than the limit, none read
    await #expect(throws: SubscriptionError.overflow(limit: 5)) { try await changes.next("the overflow") }
    let after = try await changes.nextOrEnd("the end of the stream")
    #expect(after == nil, "an overflowed subscription has ended")
    leaf.value = 7
    #expect(try await changes.nextOrEnd("the end, again") == nil, "and receives nothing more")
  }

  @Test func aConsumerAtTheLimitLosesNothing() async throws {
    let (leaf, anchor) = Leaf().andAnchor()
    let changes = DeadlineIterator(anchor.changeSets(limit: 5))
    for value in 1...5 { leaf.value = value }
    for revision in 1...5 {
      #expect(try await changes.next("change set \(revision) of 5").revision == UInt64(revision))
    }
    // Reading made room again: five more fit.
    for value in 6...10 { leaf.value = value }
    for revision in 6...10 {
      #expect(try await changes.next("change set \(revision)").revision == UInt64(revision))
    }
  }

  @Test func aSecondConcurrentConsumerGetsAClearError() async throws {
    let (leaf, anchor) = Leaf().andAnchor()
    let changes = anchor.changeSets()
    // Two tasks wait on the same subscription; exactly one of them is refused.
    let first = Task { () -> Result<UInt64?, SubscriptionError> in
      do throws(SubscriptionError) {
        var iterator = changes.makeAsyncIterator()
        return .success(try await iterator.next()?.revision)
      } catch { return .failure(error) }
    }
    let second = Task { () -> Result<UInt64?, SubscriptionError> in
      do throws(SubscriptionError) {
        var iterator = changes.makeAsyncIterator()
        return .success(try await iterator.next()?.revision)
      } catch { return .failure(error) }
    }
    // One of them is refused as soon as both have asked; then a commit wakes the other.
    let refused = try await withDeadline("one consumer to be refused") {
      await withTaskGroup(of: Result<UInt64?, SubscriptionError>?.self) { group in
        group.addTask { await first.value }
        group.addTask { await second.value }
        let early = await group.next()!
        leaf.value = 1
        let late = await group.next()!
        return [early, late]
      }
    }
    let errors = refused.compactMap { result -> SubscriptionError? in
      if case .failure(let error)? = result { return error }
      return nil
    }
    let revisions = refused.compactMap { result -> UInt64? in
      if case .success(let revision)? = result { return revision }
      return nil
    }
    #expect(errors == [.concurrentConsumers])
    #expect(revisions == [1], "the consumer that was first still gets the change set")
    #expect(SubscriptionError.concurrentConsumers.description.contains("Another task is already iterating"))
  }

  @Test func consumersTakingTurnsShareOneSubscription() async throws {
    let (leaf, anchor) = Leaf().andAnchor()
    let changes = anchor.changeSets()
    leaf.value = 1
    leaf.value = 2
    let firstLoop = DeadlineIterator(changes)
    #expect(try await firstLoop.next("revision 1").revision == 1)
    let secondLoop = DeadlineIterator(changes)
    #expect(try await secondLoop.next("revision 2").revision == 2, "a later loop goes on where the first stopped")
  }

  @Test func anEventSubscriptionThatFallsBehindOverflows() async throws {
    let (leaf, anchor) = Leaf().andAnchor()
    let events = DeadlineIterator(anchor.events(limit: 3))
    for _ in 0..<4 { leaf.node.send("ping") }
    await #expect(throws: SubscriptionError.overflow(limit: 3)) { try await events.next("the overflow") }
    #expect(try await events.nextOrEnd("the end of the stream") == nil)
  }
}
