import Arbor
import ArborJSON
import ArborTesting
import Testing

/// A dictionary key with a combining mark right after a `/`, or at its start: the change
/// set's patch text (what the journal keeps and a standby applies) turns the state before
/// into the state after. Found by the `tree` fuzz target (JSONPointerCombiningMarkTests has
/// the pointers alone).
@Suite struct PatchCombiningMarkTests {
  @Test func keysWithACombiningMarkAfterASlashAreExactInThePatchText() async throws {
    let (forest, anchor) = Forest().andAnchor()
    var previous = try anchor.state().value
    let changeSets = DeadlineIterator(anchor.changeSets())
    for key in ["a/\u{301}", "\u{301}\t", "~\u{301}/"] {
      forest.keyed[key] = Leaf()
      let changeSet = try await changeSets.next("the change set of \(key.debugDescription)")
      let text = try JSONPatch(json: JSONValue(parsing: changeSet.patchJSON))
      let next = try anchor.state().value
      #expect(try text.apply(to: previous) == next, "\(key.debugDescription): \(String(decoding: changeSet.patchJSON, as: UTF8.self))")
      previous = next
    }
  }
}
