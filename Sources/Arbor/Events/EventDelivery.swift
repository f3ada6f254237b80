/// One sent event as a listener receives it: the event and the model that sent it, and
/// what the sender was doing: the trace of its intent call (so that a handler's commits
/// count as the call's), and a hold on its work when the call waits until settled.
struct EventDelivery: Sendable {
  let event: any Sendable
  let source: any Model
  var senderTrace: CommitTrace? = nil
  var hold: IntentWorkHold? = nil
}

/// A listener registered on a model: it receives the events sent to that model.
final class EventListener: Sendable {
  let subscription: Subscription<EventDelivery>
  let token: ListenerToken

  init(subscription: Subscription<EventDelivery>, token: ListenerToken) {
    self.subscription = subscription
    self.token = token
  }
}

/// Identifies a listener to its removal callback without keeping the listener alive.
final class ListenerToken: Sendable {}

extension AnyModelContext {
  /// Registers a listener for the events sent to this model. Takes the lock.
  final func addEventListener() -> EventListener {
    let box = WeakContext(self)
    let token = ListenerToken()
    let subscription = Subscription<EventDelivery>(limit: 10_000) {
      guard let context = box.context else { return }
      context.withLock { context.hooks?.eventListeners.removeAll { $0.token === token } }
    }
    let listener = EventListener(subscription: subscription, token: token)
    withLock { ensureHooks.eventListeners.append(listener) }
    return listener
  }

  /// Sends `event` from `source` (this context's model) to the models `relation` reaches.
  /// Listeners are collected under the lock and fed after it is released. Each receiving
  /// model gets the event once, however many places it or the sender occupies.
  final func send(_ event: any Sendable, from source: any Model, to relation: ModelRelation) {
    let (listeners, emitted): ([EventListener], (ModelTree, EmittedEvent)?) = withLock {
      var listeners: [EventListener] = []
      for receiver in contexts(in: relation) {
        if let receiverListeners = receiver.hooks?.eventListeners { listeners.append(contentsOf: receiverListeners) }
      }
      var emitted: (ModelTree, EmittedEvent)?
      if lifetime == .anchored, let tree, tree.fanOut.hasEventSubscribers {
        emitted = (
          tree,
          EmittedEvent(
            revision: tree.revision, source: id, sourceType: typeName, sourcePath: pathFromRoot() ?? .root,
            type: eventTypeName(of: event), event: event, isExportable: event is any Codable)
        )
      }
      return (listeners, emitted)
    }
    if !listeners.isEmpty {
      // Sent inside an intent call (only then is there a trace or a settled call's work,
      // and the tree counts the calls under way): its receivers' handling belongs to it.
      var work: IntentWork?
      var trace: CommitTrace?
      if let tree = self.tree, tree.fanOut.tracingCalls.load(ordering: .relaxed) > 0 {
        work = IntentWork.current
        trace = ChangeCause.current?.trace
      }
      for listener in listeners {
        let delivery = EventDelivery(event: event, source: source, senderTrace: trace, hold: work.map(IntentWorkHold.init))
        if !listener.subscription.yield(delivery) { delivery.hold?.release() }
      }
    }
    if let (tree, event) = emitted { tree.fanOut.publish(event) }
  }
}

/// A weak reference to a context, for callbacks that must not keep it alive.
final class WeakContext: Sendable {
  weak let context: AnyModelContext?
  init(_ context: AnyModelContext) { self.context = context }
}

/// A type's name with its enclosing types but without its module: `CounterModel.Event`.
func eventTypeName(of event: any Sendable) -> String {
  let qualified = String(reflecting: type(of: event))
  guard let dot = qualified.firstIndex(of: ".") else { return qualified }
  return String(qualified[qualified.index(after: dot)...])
}
