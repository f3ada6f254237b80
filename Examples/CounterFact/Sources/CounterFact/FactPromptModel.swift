import Arbor

/// The fact shown for a number, with ways to get another one or dismiss it.
@Model public struct FactPromptModel {
  /// What a prompt tells its ancestors.
  public enum Event: Sendable, Equatable, Codable {
    case dismissTapped
  }

  public let count: Int
  public var fact: String
  public var isLoading = false
  @ModelDependency var factClient: FactClient

  public init(count: Int, fact: String) {
    self.count = count
    self.fact = fact
  }

  @Intent public func dismissTapped() { node.send(.dismissTapped) }

  /// Replaces the fact with another one about the same number.
  @Intent public func getAnotherFactButtonTapped() {
    isLoading = true
    node.task {
      let fact = try await factClient.fetch(count)
      node.transaction {
        self.fact = fact
        isLoading = false
      }
    } catch: { _ in
      isLoading = false
    }
    .cancelInFlight()
  }
}
