import Arbor

/// A row of the list: wraps one counter.
@Model public struct CounterRowModel {
  public var counter: CounterModel

  public init(counter: CounterModel = CounterModel()) {
    self.counter = counter
  }
}
