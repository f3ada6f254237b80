import Arbor

extension LocalKeys {
  var isEditing: LocalStorage<Bool> { .init(defaultValue: false) }
}

extension EnvironmentKeys {
  var theme: EnvironmentStorage<String> { .init(defaultValue: "light") }
}

extension PreferenceKeys {
  var dirtyCount: PreferenceStorage<Int> { .init(defaultValue: 0) { $0 += $1 } }
}

/// A model for the SwiftModel 1.0 spellings of testing: state, a child, local,
/// environment and preference values, events, tasks, and a callback.
@Model struct TestedEditor {
  enum Event: Sendable, Equatable { case saved(String) }

  var title = ""
  var error: String? = nil
  var isLoading = false
  var child: TestedEditor? = nil
  @ModelIgnored var onSave: (@Sendable (String) -> Void)? = nil
  @ModelIgnored var loadDelay: Duration = .zero

  func startEditing() { node.local.isEditing = true }
  func markDirty() { node.preference.dirtyCount = 1 }
  func useTheme(_ theme: String) { node.environment.theme = theme }
  func addChild() { child = TestedEditor(title: "child") }

  /// A failure that clears itself: the state ends where it began.
  func failAndRecover() {
    error = "timeout"
    error = nil
  }

  func save() {
    onSave?(title)
    node.send(Event.saved(title))
  }

  func load() {
    isLoading = true
    node.task {
      try? await Task.sleep(for: loadDelay)
      title = "loaded"
      isLoading = false
    }
  }
}

/// A model whose activation keeps writing for a while after `withAnchor()` returns.
@Model struct SlowStarter {
  var step = 0
  var isReady = false

  func onActivate() {
    node.task {
      for _ in 0..<5 {
        try? await Task.sleep(for: .milliseconds(5))
        step += 1
      }
      isReady = true
    }
  }
}
