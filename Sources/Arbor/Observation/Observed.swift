/// An asynchronous sequence of the values of an expression over models, re-evaluated when
/// anything it read changes.
///
/// It tracks exactly the properties the closure reads on each evaluation: a write to a
/// property it did not read wakes nothing. The first element is the current value. A burst
/// of writes before the consumer asks for the next element is one re-evaluation, and for
/// `Equatable` values a result equal to the previous one is skipped.
///
/// ```swift
/// for await count in Observed({ model.counter.count }) {
///   print("count is now", count)
/// }
/// ```
public struct Observed<Value: Sendable>: AsyncSequence, Sendable {
  public typealias Element = Value

  let expression: @Sendable () -> Value
  let isDuplicate: (@Sendable (Value, Value) -> Bool)?
  let initial: Bool

  /// Observes `expression`; every re-evaluation is delivered.
  ///
  /// - Parameter initial: whether the first element is the current value (default) or the
  ///   first changed one.
  public init(initial: Bool = true, _ expression: @escaping @Sendable () -> Value) {
    self.expression = expression
    self.isDuplicate = nil
    self.initial = initial
  }

  /// Observes `expression`, skipping results equal to the previous one.
  public init(initial: Bool = true, _ expression: @escaping @Sendable () -> Value) where Value: Equatable {
    self.expression = expression
    self.isDuplicate = { $0 == $1 }
    self.initial = initial
  }

  /// Observes `expression`, skipping results that `removeDuplicates` calls equal.
  public init(
    initial: Bool = true,
    removeDuplicates: @escaping @Sendable (Value, Value) -> Bool,
    _ expression: @escaping @Sendable () -> Value
  ) {
    self.expression = expression
    self.isDuplicate = removeDuplicates
    self.initial = initial
  }

  public func makeAsyncIterator() -> Iterator {
    Iterator(sequence: self)
  }

  /// Iterates an ``Observed`` sequence. Ending the iteration drops its registrations.
  public struct Iterator: AsyncIteratorProtocol {
    let sequence: Observed<Value>
    let observation = Observation()
    var last: Value?
    var started = false

    final class Observation: Sendable {
      let observer = AccessObserver()
      deinit { observer.unregisterAll() }
    }

    init(sequence: Observed<Value>) {
      self.sequence = sequence
    }

    public mutating func next() async -> Value? {
      if !started {
        started = true
        let value = observation.observer.track(sequence.expression)
        last = value
        if sequence.initial { return value }
      }
      while true {
        guard await observation.observer.waitForChange() else {
          observation.observer.unregisterAll()
          return nil
        }
        let touched = observation.observer.takeTouched()
        let value = observation.observer.track(sequence.expression)
        // `node.touch` bypasses the deduplication: the value may have changed inside a
        // reference the `==` cannot see.
        if !touched, let last, let isDuplicate = sequence.isDuplicate, isDuplicate(last, value) { continue }
        last = value
        return value
      }
    }
  }
}
