import Arbor

/// One counter: a count and the buttons that change it.
@Model public struct CounterModel {
  public var count = 0

  public init(count: Int = 0) {
    self.count = count
  }

  public func incrementTapped() { count += 1 }
  public func decrementTapped() { count -= 1 }
}
