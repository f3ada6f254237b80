// counterfact-tour: builds the CounterFact model tree, drives it the way a user would, and
// prints every change set the tree commits: revision, path and new value.
//
// Facts come from a local FactClient so that the tour runs offline; the example's live
// client asks numbersapi.com.

import Arbor
import ArborJSON
import CounterFact
import Foundation

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
for try await changeSet in changeSets {
  for change in changeSet.changes {
    print("r\(changeSet.revision)  \(describe(change))")
  }
  if changeSet.revision == finalRevision { break }
}

print("\nRevision \(anchor.revision): \(app.counters.count) counter(s), sum \(app.sum).")
print("The remaining counter lives at \(app.counters[0].counter.node.path!).")

// The same revisions as JSON Patch, the form a daemon streams to its watchers.
print("\nThe next change, as the JSON Patch a watcher receives:\n")
let patches = anchor.changeSets()
app.counters[0].counter.incrementTapped()
for try await changeSet in patches {
  print("r\(changeSet.revision)  \(String(decoding: try JSONValueEncoder().encode(changeSet.patch).jsonData(), as: UTF8.self))")
  break
}

// A snapshot record, restored into a new tree that goes on from the same revision.
let snapshot = try anchor.snapshot()
let (restored, restoredAnchor) = try AppModel.andAnchor(restoring: snapshot) { $0.factClient = offlineFacts }
print("\nSnapshot: \(snapshot.count) bytes at revision \(anchor.revision), schema \(AppModel.schemaHash.prefix(19))…")
print("Restored at revision \(restoredAnchor.revision), same state: \(try restoredAnchor.state().value == anchor.state().value).")

// Intents: operations called by name, target and JSON parameters.
let dispatcher = IntentDispatcher(restoredAnchor)
let outcome = try await dispatcher.call("incrementTapped", on: .path("/counters/0/counter"))
print("\nintent incrementTapped on /counters/0/counter -> revision \(outcome.revision), count \(restored.counters[0].counter.count)")
do {
  _ = try await dispatcher.call("incrementTapped", on: .path("/counters/5/counter"))
} catch {
  print("intent incrementTapped on /counters/5/counter -> \(error)")
}
