import Arbor
import Observation

/// The small model the benchmarks create by the hundred thousand.
@Model struct SmallModel {
  var value = 0
  var label = ""

  /// What the store benchmarks call over the socket.
  @Intent func increment() { value += 1 }
}

/// A root holding its children in one array.
@Model struct RootModel {
  var children: [SmallModel] = []
  var title = ""
}

/// The same shape as `SmallModel`, as an `@Observable` class.
@Observable final class SmallObservable {
  var value = 0
  var label = ""
}

/// The same shape as `RootModel`, as an `@Observable` class: the baseline of appending.
@Observable final class RootObservable {
  var children: [SmallObservable] = []
  var title = ""
}

/// A three-level tree for event delivery: a root, branches, leaves.
@Model struct EventRoot {
  var branches: [EventBranch] = []
}

@Model struct EventBranch {
  var leaves: [EventLeaf] = []
}

@Model struct EventLeaf {
  enum Event: Sendable { case tick }
  var value = 0
}
