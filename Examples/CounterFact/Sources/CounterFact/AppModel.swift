import Arbor

/// The root: a list of counter rows and an optional fact prompt.
///
/// Children report to it with events rather than closures, so that the wiring is made
/// again by `onActivate` whenever the tree is built, including from a saved state.
@Model public struct AppModel {
  public var counters: [CounterRowModel] = []
  public var factPrompt: FactPromptModel? = nil

  public init(counters: [CounterRowModel] = [], factPrompt: FactPromptModel? = nil) {
    self.counters = counters
    self.factPrompt = factPrompt
  }

  /// The sum of every counter.
  public var sum: Int {
    counters.reduce(0) { $0 + $1.counter.count }
  }

  public func onActivate() {
    // Adding and removing rows can be undone (`history.undo` over the socket); the
    // prompt is transient and stays out of the history.
    node.trackUndo(\.counters)
    node.forEach(node.event(fromType: CounterModel.self)) { event, _ in
      switch event {
      case .factLoaded(let count, let fact):
        factPrompt = FactPromptModel(count: count, fact: fact)
      }
    }
    node.forEach(node.event(fromType: CounterRowModel.self)) { event, row in
      switch event {
      case .removeTapped:
        counters.removeAll { $0.id == row.id }
      }
    }
    node.forEach(node.event(fromType: FactPromptModel.self)) { event, _ in
      switch event {
      case .dismissTapped:
        factPrompt = nil
      }
    }
  }

  @Intent public func addButtonTapped() {
    counters.append(CounterRowModel())
  }

  @Intent public func removeButtonTapped(id: CounterRowModel.ID) {
    counters.removeAll { $0.id == id }
  }

  @Intent public func dismissFactTapped() {
    factPrompt = nil
  }
}
