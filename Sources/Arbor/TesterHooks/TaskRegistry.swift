import ArborLocking
/// The tasks a tree's models started with `node.task` (and `node.forEach`) that are still
/// running, each with a description, so that a tester can say which ones outlived a test.
///
/// Tasks started while a model activates (in `onActivate()` or a `withActivation` step)
/// live as long as their model by design; they are marked as such.
package final class TaskRegistry: Sendable {
  /// A running task.
  package struct Entry: Sendable {
    let context: AnyModelContext
    /// Started while its model activated.
    package let isActivationTask: Bool
    /// Started inside a testing scope that does not require tasks to end
    /// (`withExhaustivity(.off) { … }`).
    var isExempt = TaskExemption.isExempt

    /// `CounterModel at /counters/0/counter`, where the model is now.
    package var description: String {
      let path = context.withLock { context.pathFromRoot() }
      return "\(context.typeName) at \(path.map { $0.description.isEmpty ? "/" : $0.description } ?? "(no longer in the tree)")"
    }
  }

  private struct State {
    var next = 0
    var running: [Int: Entry] = [:]
  }

  private let state = LockedState(State())

  /// Records a task as running; `end(_:)` with the returned token removes it.
  func start(_ entry: Entry) -> Int {
    state.withLock { state in
      defer { state.next += 1 }
      state.running[state.next] = entry
      return state.next
    }
  }

  func end(_ token: Int) {
    _ = state.withLock { $0.running.removeValue(forKey: token) }
  }

  /// The tasks running now.
  package var running: [Entry] {
    state.withLock { Array($0.running.values) }
  }

  /// The tasks running now that a test must see end: not started during activation, nor
  /// inside an exempting scope; by registration number.
  package var required: [Int: Entry] {
    state.withLock { $0.running.filter { !$0.value.isActivationTask && !$0.value.isExempt } }
  }
}

/// Whether tasks started by the current code need not end before a test does.
package enum TaskExemption {
  @TaskLocal package static var isExempt = false
}

/// Whether the current code runs as part of a model's activation.
enum ActivationScope {
  @TaskLocal static var isActivating = false
}
