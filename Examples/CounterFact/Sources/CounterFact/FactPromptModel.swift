import Arbor

/// The fact shown for a number, with a way to dismiss it.
@Model public struct FactPromptModel {
  public let count: Int
  public var fact: String

  public init(count: Int, fact: String) {
    self.count = count
    self.fact = fact
  }
}
