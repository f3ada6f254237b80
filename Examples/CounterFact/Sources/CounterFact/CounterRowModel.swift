import Arbor

/// A row of the list: wraps one counter and can ask to be removed.
@Model public struct CounterRowModel {
  /// What a row tells its ancestors.
  public enum Event: Sendable, Equatable, Codable {
    case removeTapped
  }

  public var counter: CounterModel

  public init(counter: CounterModel = CounterModel()) {
    self.counter = counter
  }

  @Intent public func removeButtonTapped() { node.send(.removeTapped) }
}
