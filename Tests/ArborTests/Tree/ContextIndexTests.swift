@testable import Arbor
import Testing

/// The tree's index of contexts by id against a `Dictionary` doing the same operations.
struct ContextIndexTests {
  /// A small deterministic generator, so that a failure repeats.
  struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
      state &+= 0x9E37_79B9_7F4A_7C15
      var z = state
      z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
      z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
      return z ^ (z >> 31)
    }
  }

  @Test(arguments: zip([UInt64(1), 2, 3, 4], [UInt64(64), 1_000, 20_000, .max]))
  func findsWhatADictionaryFinds(seed: UInt64, idRange: UInt64) {
    var random = SplitMix(state: seed)
    let index = ContextIndex()
    var expected: [ModelID: AnyModelContext] = [:]
    var ids: [ModelID] = []
    for step in 0..<30_000 {
      // Inserts outnumber removals until the table has grown several times, then removals
      // take over and empty it again: both the growth and long runs of deletions happen.
      let removing = step < 18_000 ? random.next(upperBound: UInt64(3)) == 0 : random.next(upperBound: UInt64(3)) != 0
      if removing, !ids.isEmpty {
        // Removed by swapping with the last: the list of ids stays O(1) to edit.
        let position = Int(random.next(upperBound: UInt64(ids.count)))
        let id = ids[position]
        ids.swapAt(position, ids.count - 1)
        ids.removeLast()
        index.remove(id)
        expected[id] = nil
      } else {
        let id = ModelID(rawValue: idRange == .max ? random.next() : random.next(upperBound: idRange))
        let context = AnyModelContext(id: id)
        index.insert(context)
        if expected.updateValue(context, forKey: id) == nil { ids.append(id) }
      }
      if step % 1_000 == 999 {
        #expect(index.count == expected.count, "step \(step)")
        for (id, context) in expected where index[id] !== context {
          Issue.record("step \(step): \(id) not found as inserted")
          return
        }
      }
    }
    #expect(index.count == expected.count)
    for (id, context) in expected { #expect(index[id] === context) }
    if idRange != .max { #expect(index[ModelID(rawValue: idRange + 5)] == nil, "an id never inserted is not found") }
  }

  @Test func sequentialIDsAndEveryRemovalOrder() {
    let index = ContextIndex()
    let contexts = (0..<5_000).map { _ in AnyModelContext(id: .generate()) }
    for context in contexts { index.insert(context) }
    #expect(index.count == contexts.count)
    // Removing every other one, then the rest from the end, leaves each survivor findable.
    for (position, context) in contexts.enumerated() where position % 2 == 0 { index.remove(context.id) }
    for (position, context) in contexts.enumerated() {
      #expect((index[context.id] === context) == (position % 2 == 1), "context \(position)")
    }
    for context in contexts.reversed() { index.remove(context.id) }
    #expect(index.isEmpty)
    for context in contexts { #expect(index[context.id] == nil) }
  }

  @Test func holdsItsContextsAndLetsThemGo() {
    weak var removed: AnyModelContext?
    weak var replaced: AnyModelContext?
    weak var kept: AnyModelContext?
    var index: ContextIndex? = ContextIndex()
    do {
      let first = AnyModelContext(id: ModelID(rawValue: 1))
      let second = AnyModelContext(id: ModelID(rawValue: 2))
      let secondAgain = AnyModelContext(id: ModelID(rawValue: 2))
      removed = first
      replaced = second
      kept = secondAgain
      index?.insert(first)
      index?.insert(second)
      index?.insert(secondAgain)
      index?.remove(first.id)
      index?.remove(ModelID(rawValue: 99))
    }
    #expect(removed == nil, "a removed context is released")
    #expect(replaced == nil, "a context replaced under its id is released")
    #expect(kept != nil, "the index holds what it keeps")
    #expect(index?.count == 1)
    #expect(index?[ModelID(rawValue: 2)] === kept)
    index = nil
    #expect(kept == nil, "the index releases what it held when it goes")
  }
}
