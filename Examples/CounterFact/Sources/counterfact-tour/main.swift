// counterfact-tour: builds the CounterFact model tree, drives it the way a user would, and
// prints every change set the tree commits: revision, path and new value.
//
// Facts come from a local FactClient so that the tour runs offline; the example's live
// client asks numbersapi.com.

import Arbor
import CounterFact

/// A short, readable form of a changed value.
func describe(_ value: any Sendable) -> String {
  if let model = value as? any Model { return "\(type(of: model)) \(model.id)" }
  if let string = value as? String { return "\"\(string)\"" }
  return "\(value)"
}

func describe(_ change: Change) -> String {
  switch change.operation {
  case .set(let value): return "set    \(change.valuePath) = \(describe(value))"
  case .insert(_, let value): return "insert \(change.valuePath) = \(describe(value))"
  case .remove: return "remove \(change.valuePath)"
  }
}

/// Waits until `condition` holds, observing exactly what it reads.
func waitUntil(_ condition: @escaping @Sendable () -> Bool) async {
  for await holds in Observed(condition) where holds { return }
}

let offlineFacts = FactClient { number in "\(number) is the number of this fact." }
let (app, anchor) = AppModel().andAnchor { $0.factClient = offlineFacts }
let changeSets = anchor.changeSets()
print("Anchored AppModel at revision \(changeSets.startRevision).")

print("\nAdd two counters, count up, fetch a fact, then remove the first row:\n")
app.addButtonTapped()
app.addButtonTapped()
app.counters[0].counter.incrementTapped()
app.counters[1].counter.incrementTapped()
app.counters[1].counter.incrementTapped()
app.counters[1].counter.factButtonTapped()
await waitUntil { app.factPrompt != nil }
app.node.transaction {
  // One transaction: one revision, however many writes.
  app.counters[0].counter.count = 10
  app.counters[0].counter.decrementTapped()
}
app.counters[0].removeButtonTapped()
await waitUntil { app.counters.count == 1 }
app.factPrompt?.dismissTapped()
await waitUntil { app.factPrompt == nil }

// The subscription buffered every change set in commit order; print them.
let finalRevision = anchor.revision
for await changeSet in changeSets {
  for change in changeSet.changes {
    print("r\(changeSet.revision)  \(describe(change))")
  }
  if changeSet.revision == finalRevision { break }
}

print("\nRevision \(anchor.revision): \(app.counters.count) counter(s), sum \(app.sum).")
print("The remaining counter lives at \(app.counters[0].counter.node.path!).")
