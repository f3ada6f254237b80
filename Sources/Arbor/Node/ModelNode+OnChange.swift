extension ModelNode {
  /// Calls `perform` with the old and the new value each time `value` changes, for as long
  /// as the model is active: it reacts to a *transition*, for when what the value changed
  /// from matters.
  ///
  /// ```swift
  /// func onActivate() {
  ///   node.onChange(of: isLoggedIn) { wasLoggedIn, isLoggedIn in
  ///     if !wasLoggedIn && isLoggedIn { await fetchProfile() }
  ///   }
  /// }
  /// ```
  ///
  /// `value` is read at once, tracking what it reads as in `Observed`: that first value is
  /// the baseline, and each later value that differs from the last one delivered calls
  /// `perform(old, new)`. Changes made while `perform` runs are coalesced into one
  /// transition from the last value delivered. A `node.touch` of something `value` read
  /// delivers a transition even when the value is equal.
  ///
  /// - Parameters:
  ///   - value: the expression to watch; it may read any models.
  ///   - initial: also call `perform(value, value)` with the first value.
  ///   - cancelPrevious: a new transition cancels the work of the previous one.
  ///   - priority: the priority of the task that runs `perform`.
  ///   - perform: the work for one transition, given the old and the new value.
  ///   - catch: receives the errors `perform` throws; the observation goes on.
  @discardableResult
  public func onChange<Value: Equatable & Sendable>(
    of value: @escaping @autoclosure @Sendable () -> Value,
    initial: Bool = false,
    cancelPrevious: Bool = false,
    priority: TaskPriority? = nil,
    perform: @escaping @Sendable (_ oldValue: Value, _ newValue: Value) async throws -> Void,
    catch handleError: (@Sendable (any Error) -> Void)? = nil
  ) -> Cancellable {
    forEach(
      ValueTransitions(value, initial: initial), cancelPrevious: cancelPrevious, priority: priority,
      perform: { transition in try await perform(transition.old, transition.new) }, catch: handleError)
  }
}

/// One change of a watched value.
struct ValueTransition<Value: Sendable>: Sendable {
  let old: Value
  let new: Value
}

/// The transitions of an expression over models: an ``Observed`` whose first reading is
/// taken when the sequence is made (so that no change between `onChange` and the start of
/// its task is lost), delivered as pairs of the last delivered value and the new one. It is
/// iterated once.
struct ValueTransitions<Value: Equatable & Sendable>: AsyncSequence, Sendable {
  typealias Element = ValueTransition<Value>

  let observation: Observation
  let initial: Bool

  init(_ expression: @escaping @Sendable () -> Value, initial: Bool) {
    self.observation = Observation(expression)
    self.initial = initial
  }

  /// The observer registered by the first reading, and that reading.
  final class Observation: Sendable {
    let observer = AccessObserver()
    let expression: @Sendable () -> Value
    let baseline: Value

    init(_ expression: @escaping @Sendable () -> Value) {
      self.expression = expression
      self.baseline = observer.track(expression)
    }

    deinit { observer.unregisterAll() }
  }

  func makeAsyncIterator() -> Iterator {
    Iterator(observation: observation, last: observation.baseline, initialPending: initial)
  }

  struct Iterator: AsyncIteratorProtocol {
    let observation: Observation
    var last: Value
    var initialPending: Bool

    mutating func next() async -> ValueTransition<Value>? {
      if initialPending {
        initialPending = false
        return ValueTransition(old: last, new: last)
      }
      let observer = observation.observer
      while true {
        guard await observer.waitForChange() else {
          observer.unregisterAll()
          return nil
        }
        let touched = observer.takeTouched()
        let value = observer.track(observation.expression)
        if !touched && value == last { continue }
        defer { last = value }
        return ValueTransition(old: last, new: value)
      }
    }
  }
}
