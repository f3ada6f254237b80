import Arbor

extension ContextKeys {
  var benchmarkTheme: ContextStorage<Int> { .init(defaultValue: 0, propagation: .environment) }
}

extension PreferenceKeys {
  var benchmarkTotal: PreferenceStorage<Int> { .init(defaultValue: 0) { $0 += $1 } }
}

@Model struct DerivedLeaf {
  var value = 1
  var doubled: Int { node.memoize(for: "doubled") { value * 2 } }
}

@Model struct DerivedRoot {
  var ticks = 0
  var leaves: [DerivedLeaf] = []
}

/// The cost of a commit next to memoized values, context keys and preference
/// contributions it does not touch, against the same commit in a tree that has none.
struct DerivedValueBenchmarks {
  let divisor: Int

  func run() {
    let models = 1_000
    let writes = 200_000 / divisor
    var report = Report("A commit of one property, next to \(models) models' memoized values, context keys and preferences it does not touch (ns per commit, best of 5)")
    report.row("measure", "with", "without", "with / without")

    let plain = DerivedRoot(leaves: (0..<models).map { _ in DerivedLeaf() }).withAnchor()
    let loaded = DerivedRoot(leaves: (0..<models).map { _ in DerivedLeaf() }).withAnchor()
    for leaf in loaded.leaves {
      _ = leaf.doubled
      leaf.node.context.benchmarkTheme = 1
      leaf.node.preference.benchmarkTotal = leaf.value
    }
    // Readers of all of them: the memoized values and the reduction are observed.
    _ = loaded.node.preference.benchmarkTotal
    let without = Measure.best(of: 5) { for _ in 0..<writes { plain.ticks += 1 } } / Double(writes)
    let with = Measure.best(of: 5) { for _ in 0..<writes { loaded.ticks += 1 } } / Double(writes)
    report.row("commit", format(with, "ns"), format(without, "ns"), ratio(with, without))
    report.print()
  }
}
