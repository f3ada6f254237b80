import Arbor
import Observation
import Synchronization

/// A counter shared with observation callbacks.
final class Counter: Sendable {
  private let storage = Atomic<Int>(0)
  func increment() { storage.add(1, ordering: .relaxed) }
  var value: Int { storage.load(ordering: .relaxed) }
}

/// The runtime-core benchmarks of the model runtime, each printed next to a baseline.
struct CoreBenchmarks {
  /// 1 for the full sizes; larger values divide the work (for a quick run).
  let divisor: Int

  func run() async {
    propertyReads()
    await propertyWrites()
    await commitCost()
    memory()
    appends()
  }

  // MARK: 0. Property reads

  /// Reads of an anchored model's property, next to reads of an `@Observable` object's.
  func propertyReads() {
    let reads = 2_000_000 / divisor
    var report = Report("Tracked property read (ns per read; \(reads) reads, best of 3)")
    report.row("workload", "Arbor", "Observation", "Arbor / Observation")
    let model = SmallModel(value: 1).withAnchor()
    let object = SmallObservable()
    object.value = 1
    var sum = 0
    let arbor = Measure.best(of: 3) {
      for _ in 0..<reads { sum &+= model.value }
    } / Double(reads)
    let observation = Measure.best(of: 3) {
      for _ in 0..<reads { sum &+= object.value }
    } / Double(reads)
    report.row("read", format(arbor, "ns"), format(observation, "ns"), ratio(arbor, observation))
    report.print()
    if sum == 42 { print("") }  // keeps the reads
  }

  // MARK: 1. Property writes with one active observer

  func propertyWrites() async {
    let writes = 1_000_000 / divisor
    var report = Report("Tracked property write, one active observer (ns per write; \(writes) writes, best of 3)")
    report.row("workload", "Arbor", "Observation", "Arbor / Observation")

    // No observer at all.
    let plainModel = SmallModel().withAnchor()
    let plainObject = SmallObservable()
    var next = 0
    let arborPlain = Measure.best(of: 3) {
      for _ in 0..<writes { next += 1; plainModel.value = next }
    } / Double(writes)
    let observationPlain = Measure.best(of: 3) {
      for _ in 0..<writes { next += 1; plainObject.value = next }
    } / Double(writes)
    report.row("write, no observer", format(arborPlain, "ns"), format(observationPlain, "ns"), ratio(arborPlain, observationPlain))

    // One observer that is told of every change and re-reads the value: an `Observed`
    // stream consumed by another task, against `withObservationTracking` re-armed after
    // every write (it fires once per registration).
    let model = SmallModel().withAnchor()
    let delivered = Counter()
    let consumer = Task.detached {
      for await _ in Observed({ model.value }) { delivered.increment() }
    }
    while delivered.value == 0 { await Task.yield() }
    let arborObserved = Measure.best(of: 3) {
      for _ in 0..<writes { next += 1; model.value = next }
    } / Double(writes)
    consumer.cancel()

    let object = SmallObservable()
    let fired = Counter()
    func arm() {
      withObservationTracking { _ = object.value } onChange: { fired.increment() }
    }
    arm()
    let observationTracked = Measure.best(of: 3) {
      for _ in 0..<writes {
        next += 1
        object.value = next
        arm()
      }
    } / Double(writes)
    report.row(
      "write, one observer", format(arborObserved, "ns"), format(observationTracked, "ns"), ratio(arborObserved, observationTracked))

    report.print()
    print("(observer wake-ups: Arbor \(delivered.value) (coalesced), withObservationTracking \(fired.value))")
  }

  // MARK: 2. Commit cost against tree size

  func commitCost() async {
    let commits = 200_000 / divisor
    var report = Report("Committed single-property transaction with its change set and path (ns per commit; \(commits) commits, best of 3)")
    report.row("children in the root's array", "with subscriber", "no subscriber", "")
    var withSubscriber: [Int: Double] = [:]
    for size in [100, 100_000 / divisor] {
      let root = RootModel().withAnchor()
      root.children.append(contentsOf: (0..<size).map { _ in SmallModel() })
      let target = root.children[size - 2]
      var next = 0
      let unobserved = Measure.best(of: 3) {
        for _ in 0..<commits { next += 1; target.value = next }
      } / Double(commits)

      // The subscriber reads after the timed part: what is timed is producing each change
      // set (the path, the change, the hand-off), not waking a consumer on the other core.
      let changeSets = root.node.changeSets(limit: commits)!
      var iterator = changeSets.makeAsyncIterator()
      var subscribed = Double.infinity
      for _ in 0..<3 {
        subscribed = min(subscribed, Measure.nanoseconds {
          for _ in 0..<commits { next += 1; target.value = next }
        } / Double(commits))
        for _ in 0..<commits {
          let changeSet = try! await iterator.next()!
          precondition(changeSet.changes[0].path.components.count == 2)
        }
      }
      withSubscriber[size] = subscribed
      report.row("\(size)", format(subscribed, "ns"), format(unobserved, "ns"), "")
    }
    let small = withSubscriber[100]!, large = withSubscriber[100_000 / divisor]!
    report.row("ratio large / small", ratio(large, small), "", "goal: under 1.2")
    report.print()
  }

  // MARK: 3. Memory per model

  func memory() {
    let count = 100_000 / divisor
    var report = Report("Resident memory per model, \(count) small models, each kind in a fresh process (bytes per model)")
    report.row("measure", "Arbor (anchored)", "@Observable", "Arbor / Observable")

    let arborResident = Double(MemoryProbe.measure(kind: "arbor", count: count)) / Double(count)
    let observableResident = Double(MemoryProbe.measure(kind: "observable", count: count)) / Double(count)
    report.row("resident (RSS)", format(arborResident, "B"), format(observableResident, "B"), ratio(arborResident, observableResident))
    report.row("model value size", "\(MemoryLayout<SmallModel>.size) B", "\(MemoryLayout<SmallObservable>.size) B", "")
    report.print()
    print("goal: resident at most 2x the @Observable figure")
  }

  // MARK: 4. Appending children

  func appends() {
    var report = Report("Appending child models to an anchored root (ms, best of 3)")
    report.row("children", "one at a time", "batches of 1,000", "")
    var results: [Int: (Double, Double)] = [:]
    let sizes = [10_000 / divisor, 100_000 / divisor]
    for size in sizes {
      var single = Double.infinity
      var batched = Double.infinity
      for _ in 0..<3 {
        let models = (0..<size).map { _ in SmallModel() }
        let root = RootModel().withAnchor()
        single = min(single, Measure.nanoseconds {
          for model in models { root.children.append(model) }
        })
        let batchedModels = (0..<size).map { _ in SmallModel() }
        let batchedRoot = RootModel().withAnchor()
        batched = min(batched, Measure.nanoseconds {
          var start = 0
          while start < size {
            let end = min(size, start + 1_000)
            batchedRoot.children.append(contentsOf: batchedModels[start..<end])
            start = end
          }
        })
        precondition(root.children.count == size && batchedRoot.children.count == size)
      }
      results[size] = (single / 1e6, batched / 1e6)
      report.row("\(size)", format(single / 1e6, "ms"), format(batched / 1e6, "ms"), "")
    }
    let small = results[sizes[0]]!, large = results[sizes[1]]!
    report.row("ratio 10x the children", ratio(large.0, small.0), ratio(large.1, small.1), "goal: at most 12x (linear)")
    report.print()
  }
}
