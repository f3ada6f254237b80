import Arbor

/// Single workloads without timing, for running under a profiler such as
/// `valgrind --tool=callgrind`: `arbor-benchmarks __profile writes 100000`.
enum Profile {
  static func run(_ workload: String, count: Int) {
    switch workload {
    case "writes":
      let model = SmallModel().withAnchor()
      for value in 1...count { model.value = value }
    case "appends":
      let models = (0..<count).map { _ in SmallModel() }
      let root = RootModel().withAnchor()
      for model in models { root.children.append(model) }
    case "batches":
      let models = (0..<count).map { _ in SmallModel() }
      let root = RootModel().withAnchor()
      var start = 0
      while start < count {
        let end = min(count, start + 1_000)
        root.children.append(contentsOf: models[start..<end])
        start = end
      }
    case "changes":
      let root = RootModel().withAnchor()
      root.children.append(contentsOf: (0..<100).map { _ in SmallModel() })
      let target = root.children[98]
      let changeSets = root.node.changeSets(limit: count)!
      for value in 1...count { target.value = value }
      withExtendedLifetime(changeSets) {}
    case "observed-writes":
      // The writes of `core`'s "one Observed on another task": a consumer re-reads the
      // value on the cooperative pool while this thread writes.
      let model = SmallModel().withAnchor()
      let consumer = Task.detached {
        for await _ in Observed({ model.value }) {}
      }
      for value in 1...count { model.value = value }
      consumer.cancel()
    case "restores":
      // A daemon's start: a snapshot of `count` models parsed, decoded, anchored and
      // activated from its bytes, ten times.
      let (root, anchor) = RootModel().andAnchor()
      root.children.append(contentsOf: (0..<count).map { _ in SmallModel() })
      let snapshot = try! anchor.snapshot()
      for _ in 1...10 {
        let (restored, _) = try! RootModel.andAnchor(restoring: snapshot)
        precondition(restored.children.count == count)
      }
    default:
      print("unknown workload \(workload)")
    }
  }
}
