import Arbor
import CounterFact

let (app, anchor) = AppModel().andAnchor()
let changes = anchor.changeSets()
app.addButtonTapped()
app.addButtonTapped()
app.counters[1].counter.incrementTapped()
app.showFact("1 is the loneliest number", for: 1)
app.node.transaction {
  app.counters[0].counter.count = 5
  app.counters[0].counter.count = 7
}
app.removeButtonTapped(id: app.counters[0].id)
print("sum", app.sum, "revision", anchor.revision, MemoryLayout<CounterModel>.size)
var n = 0
for await set in changes {
  for c in set.changes { print(set.revision, c.valuePath, c.operation) }
  n += 1
  if n == Int(anchor.revision) { break }
}
