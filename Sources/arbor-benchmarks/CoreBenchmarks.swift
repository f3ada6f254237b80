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
    let writes = await propertyWrites()
    await commitCost()
    let memory = memory()
    let appends = appends()
    goals(writes: writes, memory: memory, appends: appends)
  }

  /// The runtime's goals, each next to `@Observable` in the same run, so that a regression
  /// shows in the next one: a model costs what an `@Observable` object costs.
  func goals(writes: WriteFigures, memory: (arbor: Double, observable: Double), appends: (arbor: Double, observable: Double)) {
    var report = Report("Goals: the runtime pays only for what it uses (this run)")
    report.row("figure", "Arbor", "@Observable", "ratio; goal")
    func judged(_ ratioText: String, _ goal: String, _ met: Bool) -> String { "\(ratioText); goal \(goal): \(met ? "met" : "NOT MET")" }
    report.row(
      "memory per model", format(memory.arbor, "B"), format(memory.observable, "B"),
      judged(ratio(memory.arbor, memory.observable), "<= 1.0x", memory.arbor <= memory.observable))
    report.row(
      "write, no observer", format(writes.plain, "ns"), format(writes.observationPlain, "ns"),
      judged(ratio(writes.plain, writes.observationPlain), "<= 1.0x", writes.plain <= writes.observationPlain))
    report.row(
      "write, one Observed on another task", format(writes.observed, "ns"), format(writes.observationPlain, "ns") + " (unobserved)",
      judged(ratio(writes.observed, writes.observationPlain), "<= 3x", writes.observed <= 3 * writes.observationPlain))
    let children = 100_000 / divisor
    report.row(
      "\(children) children in batches of 1,000", format(appends.arbor, "ms"), format(appends.observable, "ms"),
      divisor == 1
        ? judged(ratio(appends.arbor, appends.observable), "<= 70 ms", appends.arbor <= 70)
        : "\(ratio(appends.arbor, appends.observable)); goal for 100,000 (a full run): <= 70 ms")
    report.print()
  }

  /// What the write benchmark measured, in ns per write.
  struct WriteFigures {
    var plain: Double
    var observationPlain: Double
    var observed: Double
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

  @discardableResult
  func propertyWrites() async -> WriteFigures {
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
    return WriteFigures(plain: arborPlain, observationPlain: observationPlain, observed: arborObserved)
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

  @discardableResult
  func memory() -> (arbor: Double, observable: Double) {
    let count = 100_000 / divisor
    var report = Report("Resident memory per model, \(count) small models, each kind in a fresh process (bytes per model)")
    report.row("measure", "Arbor (anchored)", "@Observable", "Arbor / Observable")

    let arbor = MemoryProbe.measure(kind: "arbor", count: count)
    let observable = MemoryProbe.measure(kind: "observable", count: count)
    let unanchored = MemoryProbe.measure(kind: "arbor-unanchored", count: count)
    let arborResident = Double(arbor.peak) / Double(count)
    let observableResident = Double(observable.peak) / Double(count)
    let arborHeld = Double(arbor.held) / Double(count)
    let observableHeld = Double(observable.held) / Double(count)
    report.row("resident (RSS)", format(arborResident, "B"), format(observableResident, "B"), ratio(arborResident, observableResident))
    report.row("resident after malloc_trim", format(arborHeld, "B"), format(observableHeld, "B"), ratio(arborHeld, observableHeld))
    report.row(
      "of which before anchoring", format(Double(unanchored.held) / Double(count), "B"), "", "after malloc_trim: the models and their contexts, no tree")
    report.row("model value size", "\(MemoryLayout<SmallModel>.size) B", "\(MemoryLayout<SmallObservable>.size) B", "")
    report.print()
    return (arborResident, observableResident)
  }

  // MARK: 4. Appending children

  /// Calls `body` with `0..<count` cut into ranges of `size`, in order.
  static func inBatches(of size: Int, upTo count: Int, _ body: (Range<Int>) -> Void) {
    var start = 0
    while start < count {
      let end = min(count, start + size)
      body(start..<end)
      start = end
    }
  }

  /// Returns the largest size's batches, and the same appends to an `@Observable` root.
  @discardableResult
  func appends() -> (arbor: Double, observable: Double) {
    var report = Report("Appending child models to an anchored root (ms, best of 3)")
    report.row("children", "one at a time", "batches of 1,000", "@Observable, batches of 1,000")
    var results: [Int: (Double, Double)] = [:]
    var observableBatches: [Int: Double] = [:]
    let sizes = [10_000 / divisor, 100_000 / divisor]
    for size in sizes {
      var single = Double.infinity
      var batched = Double.infinity
      var observable = Double.infinity
      for _ in 0..<3 {
        let objects = (0..<size).map { _ in SmallObservable() }
        let observableRoot = RootObservable()
        observable = min(observable, Measure.nanoseconds {
          Self.inBatches(of: 1_000, upTo: size) { observableRoot.children.append(contentsOf: objects[$0]) }
        })
        precondition(observableRoot.children.count == size)
        let models = (0..<size).map { _ in SmallModel() }
        let root = RootModel().withAnchor()
        single = min(single, Measure.nanoseconds {
          for model in models { root.children.append(model) }
        })
        let batchedModels = (0..<size).map { _ in SmallModel() }
        let batchedRoot = RootModel().withAnchor()
        batched = min(batched, Measure.nanoseconds {
          Self.inBatches(of: 1_000, upTo: size) { batchedRoot.children.append(contentsOf: batchedModels[$0]) }
        })
        precondition(root.children.count == size && batchedRoot.children.count == size)
      }
      results[size] = (single / 1e6, batched / 1e6)
      observableBatches[size] = observable / 1e6
      report.row("\(size)", format(single / 1e6, "ms"), format(batched / 1e6, "ms"), format(observable / 1e6, "ms"))
    }
    let small = results[sizes[0]]!, large = results[sizes[1]]!
    report.row("ratio 10x the children", ratio(large.0, small.0), ratio(large.1, small.1), "goal: at most 12x (linear)")
    report.print()
    return (large.1, observableBatches[sizes[1]]!)
  }
}
