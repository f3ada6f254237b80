import Arbor

/// One counter: a count, the buttons that change it, and a button that fetches a fact
/// about the count.
@Model public struct CounterModel {
  /// What a counter tells its ancestors.
  public enum Event: Sendable, Equatable, Codable {
    /// A fact about `count` arrived.
    case factLoaded(count: Int, fact: String)
  }

  public var count = 0
  public var alert: Alert? = nil
  public var isLoadingFact = false
  @ModelDependency var factClient: FactClient

  public init(count: Int = 0) {
    self.count = count
  }

  /// Adds one to the count; at `Int.max` (a restored count can be there) it changes
  /// nothing: an overflow would trap and stop the daemon.
  @Intent public func incrementTapped() { if count < .max { count += 1 } }
  /// Takes one from the count; at `Int.min` it changes nothing.
  @Intent public func decrementTapped() { if count > .min { count -= 1 } }

  /// Fetches a fact about the current count. The fetch is tied to the counter's life: it
  /// is cancelled if the counter is removed. Tapping again replaces a fetch in flight.
  @Intent public func factButtonTapped() {
    let count = self.count
    isLoadingFact = true
    node.task {
      let fact = try await factClient.fetch(count)
      isLoadingFact = false
      node.send(.factLoaded(count: count, fact: fact))
    } catch: { error in
      isLoadingFact = false
      if !(error is CancellationError) {
        alert = Alert(title: "Error", message: "Couldn't load a fact about \(count).")
      }
    }
    .cancelInFlight()
  }

  @Intent public func alertDismissed() { alert = nil }
}
