import ArborLocking
import Synchronization

/// What handling one delivered event needs besides the event: the work of the intent that
/// sent it (a settled call waits for the handler) and the cause its writes carry.
///
/// A `forEach` over `node.event(…)` runs each handler with these bound: the handler's
/// writes are journalled as caused by the event (`event:CounterRowModel.Event.removeTapped`
/// from the sender's path) and, when the sender's intent was called with
/// ``IntentWait/settled``, count as that intent's work and commits.
struct EventHandling: Sendable {
  let hold: IntentWorkHold?
  let cause: ChangeCause

  /// The handling of `delivery`; nil when it needs none: nobody records the tree's
  /// changes, and the event was not sent inside an intent call.
  init?(_ delivery: EventDelivery) {
    let source = delivery.source._$anyContext
    let traced = delivery.senderTrace != nil
    // Nothing to do, and no lock taken, for a tree whose change sets nobody follows and an
    // event no intent call sent: a model outside a daemon pays one atomic load.
    let followed = source.tree?.fanOut.changeSetsFollowed.load(ordering: .relaxed) ?? false
    guard followed || traced || delivery.hold != nil else { return nil }
    hold = delivery.hold
    // The sender's path as it is now.
    let path = source.withLock { source.pathFromRoot() }
    // The names are read outside the lock: describing an event may run the user's code.
    let name = eventTypeName(of: delivery.event) + "." + eventCaseName(of: delivery.event)
    cause = ChangeCause(intent: "event:" + name, target: path?.description ?? "", trace: delivery.senderTrace)
  }

  /// Runs `body` (the handler, or the start of the task that runs it) as this event's
  /// handling, then releases the event's hold on the sender's work.
  static func around<R>(_ handling: EventHandling?, _ body: () async throws -> R) async rethrows -> R {
    guard let handling else { return try await body() }
    defer { handling.hold?.release() }
    return try await ChangeCause.$current.withValue(handling.cause) {
      try await IntentWork.$current.withValue(handling.hold?.work) { try await body() }
    }
  }

  /// ``around(_:_:)`` for a synchronous body: the start of a task, which inherits both.
  static func around<R>(_ handling: EventHandling?, _ body: () throws -> R) rethrows -> R {
    guard let handling else { return try body() }
    defer { handling.hold?.release() }
    return try ChangeCause.$current.withValue(handling.cause) {
      try IntentWork.$current.withValue(handling.hold?.work) { try body() }
    }
  }
}

/// Where a `forEach` over events learns the handling of the element its iterator just
/// returned: the iterator puts it, the loop's body takes it. Both run in the loop's task,
/// one after the other; the lock only makes that visible to the compiler.
final class EventHandlingSlot: Sendable {
  private let slot = LockedState<EventHandling?>(nil)
  /// Whether the slot holds something: an element with no handling (the usual case
  /// outside a daemon) costs an atomic load, not a lock.
  private let filled = Atomic<Bool>(false)

  func put(_ handling: EventHandling?) {
    guard handling != nil || filled.load(ordering: .relaxed) else { return }
    let previous = slot.withLock { slot in
      defer { slot = handling }
      return slot
    }
    filled.store(handling != nil, ordering: .relaxed)
    previous?.hold?.release()
  }

  func take() -> EventHandling? {
    guard filled.load(ordering: .relaxed) else { return nil }
    filled.store(false, ordering: .relaxed)
    return slot.withLock { slot in
      defer { slot = nil }
      return slot
    }
  }
}

/// An event's case as the journal names it: `removeTapped` for `.removeTapped` and for
/// `.factLoaded(count: 1, …)` alike; the type's name for a struct or class event.
func eventCaseName(of event: any Sendable) -> String {
  let text = String(describing: event)
  let name = text.prefix { $0 != "(" }
  guard !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) else {
    return String(describing: type(of: event))
  }
  return String(name)
}
