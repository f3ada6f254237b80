import IssueReporting

/// The events a model receives, filtered and mapped: what `node.event(of:)`,
/// `node.event(ofType:)` and `node.event(fromType:)` return.
///
/// The listener is registered when the sequence is created, so an event sent right after
/// `node.forEach(node.event(…))` is not missed. It is removed when the sequence and its
/// iterators are gone.
public struct ModelEvents<Element: Sendable>: AsyncSequence, Sendable {
  let handle: SubscriptionHandle<EventDelivery>
  let transform: @Sendable (EventDelivery) -> Element?
  /// Where a `forEach` over these events takes each element's handling (see
  /// ``EventHandling``); nil for a loop of the user's own.
  var handlingSlot: EventHandlingSlot? = nil

  public func makeAsyncIterator() -> Iterator {
    Iterator(base: SubscriptionIterator(handle: handle), transform: transform, handlingSlot: handlingSlot)
  }

  /// These events, each element's handling put into `slot` as it is returned.
  func handing(into slot: EventHandlingSlot) -> ModelEvents {
    var copy = self
    copy.handlingSlot = slot
    return copy
  }

  /// Iterates the matching events in the order they were sent.
  public struct Iterator: AsyncIteratorProtocol {
    var base: SubscriptionIterator<EventDelivery>
    let transform: @Sendable (EventDelivery) -> Element?
    let handlingSlot: EventHandlingSlot?
    /// The sender's work held for the element returned last, in a loop of the user's own:
    /// its handling is over when the loop asks for the next one.
    var inHand: IntentWorkHold?

    init(base: SubscriptionIterator<EventDelivery>, transform: @escaping @Sendable (EventDelivery) -> Element?, handlingSlot: EventHandlingSlot?) {
      self.base = base
      self.transform = transform
      self.handlingSlot = handlingSlot
    }

    public mutating func next() async -> Element? {
      inHand?.release()
      inHand = nil
      do {
        while let delivery = try await base.next() {
          guard let element = transform(delivery) else {
            delivery.hold?.release()
            continue
          }
          if let handlingSlot {
            handlingSlot.put(EventHandling(delivery))
          } else {
            inHand = delivery.hold
          }
          return element
        }
      } catch {
        reportIssue("Events of \(Element.self): \(error)")
      }
      return nil
    }
  }
}

extension ModelNode {
  /// Sends `event` to the models `relation` reaches from this one: by default the model
  /// itself and its ancestors. Each receiver gets it once.
  ///
  /// ```swift
  /// func logoutTapped() { node.send(AppEvent.logout) }
  /// ```
  public func send(_ event: some Sendable, to relation: ModelRelation = [.self, .ancestors]) {
    context.send(event, from: model, to: relation)
  }

  /// Sends one of the model's own events. See ``send(_:to:)``.
  ///
  /// ```swift
  /// @Model struct RowModel {
  ///   enum Event { case removeTapped }
  ///   func removeTapped() { node.send(.removeTapped) }
  /// }
  /// ```
  public func send(_ event: M.Event, to relation: ModelRelation = [.self, .ancestors]) {
    context.send(event, from: model, to: relation)
  }

  /// The events equal to `value` that reach this model.
  ///
  /// ```swift
  /// node.forEach(node.event(of: AppEvent.logout)) { user = nil }
  /// ```
  public func event<E: Sendable & Equatable>(of value: E) -> ModelEvents<Void> {
    events { ($0.event as? E) == value ? () : nil }
  }

  /// The events of type `type` that reach this model.
  public func event<E: Sendable>(ofType type: E.Type) -> ModelEvents<E> {
    events { $0.event as? E }
  }

  /// The events of `Child`'s own `Event` type that reach this model, each with the model
  /// that sent it.
  ///
  /// ```swift
  /// node.forEach(node.event(fromType: CounterRowModel.self)) { event, row in
  ///   switch event { case .removeTapped: counters.removeAll { $0.id == row.id } }
  /// }
  /// ```
  public func event<Child: Model>(fromType type: Child.Type) -> ModelEvents<(Child.Event, Child)> {
    events { delivery in
      guard let event = delivery.event as? Child.Event, let source = delivery.source as? Child else { return nil }
      return (event, source)
    }
  }

  private func events<Element: Sendable>(_ transform: @escaping @Sendable (EventDelivery) -> Element?) -> ModelEvents<Element> {
    let listener = context.addEventListener()
    return ModelEvents(handle: SubscriptionHandle(listener.subscription), transform: transform)
  }

  /// Subscribes to every event sent in this model's tree, from now on; nil before anchoring.
  /// At most `limit` events wait unread (see ``SubscriptionError``).
  public func emittedEvents(limit: Int = 10_000) -> EmittedEvents? {
    context.tree?.fanOut.subscribeEvents(limit: limit)
  }
}

extension ModelAnchor {
  /// Subscribes to every event sent in the tree, from now on. At most `limit` events wait
  /// unread (see ``SubscriptionError``).
  ///
  /// ```swift
  /// for try await emitted in anchor.events() { print(emitted.type) }
  /// ```
  public func events(limit: Int = 10_000) -> EmittedEvents { tree.fanOut.subscribeEvents(limit: limit) }
}
