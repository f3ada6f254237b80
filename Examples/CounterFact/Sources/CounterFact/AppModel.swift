import Arbor

/// The root: a list of counter rows and an optional fact prompt.
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

  public func addButtonTapped() {
    counters.append(CounterRowModel())
  }

  public func removeButtonTapped(id: CounterRowModel.ID) {
    counters.removeAll { $0.id == id }
  }

  public func showFact(_ fact: String, for count: Int) {
    factPrompt = FactPromptModel(count: count, fact: fact)
  }

  public func dismissFactTapped() {
    factPrompt = nil
  }
}
