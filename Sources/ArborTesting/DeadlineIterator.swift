import ArborLocking
import IssueReporting

/// An asynchronous iterator whose every `next` has a deadline and names what it waits for.
///
/// Iterators are values that `next()` mutates; this reference owns one so that each wait
/// can run in a task of its own, raced against a timer (see
/// ``withDeadline(_:seconds:fileID:filePath:line:column:_:)``). One task uses it at a
/// time: call `next` again only after the previous call returned.
///
/// ```swift
/// let changes = DeadlineIterator(anchor.changeSets())
/// model.count += 1
/// let changeSet = try await changes.next("the change set of revision 1")
/// #expect(changeSet.revision == 1)
/// ```
///
/// After a wait timed out, the iterator stays with the task that still waits for it, and
/// later calls throw at once.
public final class DeadlineIterator<Element: Sendable, Failure: Error>: @unchecked Sendable {
  // @unchecked: `state` is a LockedState, and the iterator is taken out of it for the
  // length of one `next()`, so no two tasks ever hold it at once.
  private struct State {
    var iterator: (any AsyncIteratorProtocol<Element, Failure>)?
    /// What the wait in progress waits for.
    var waitingFor: String?
    /// What a wait that timed out waited for: the iterator is lost to its task.
    var abandonedFor: String?
  }

  private let state: LockedState<State>

  /// Owns `iterator`.
  public init<Base: AsyncIteratorProtocol>(_ iterator: sending Base) where Base.Element == Element, Base.Failure == Failure {
    state = LockedState(State(iterator: iterator))
  }

  /// Owns a new iterator of `sequence`.
  public convenience init<Sequence: AsyncSequence>(_ sequence: sending Sequence)
  where Sequence.Element == Element, Sequence.Failure == Failure {
    self.init(sequence.makeAsyncIterator())
  }

  /// The next element. Fails, recording where it was called, when it does not arrive
  /// within `seconds` (throwing ``DeadlineExceeded``) or when the sequence ends first
  /// (throwing ``SequenceEnded``). The sequence's own errors pass through.
  ///
  /// - Parameter what: what the element is, completing "waiting for …".
  public func next(
    _ what: @autoclosure () -> String,
    seconds: Double = Deadline.defaultSeconds,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) async throws -> Element {
    let description = what()
    guard
      let element = try await nextOrEnd(
        description, seconds: seconds, fileID: fileID, filePath: filePath, line: line, column: column)
    else {
      let error = SequenceEnded(what: description)
      reportIssue(error.description, fileID: fileID, filePath: filePath, line: line, column: column)
      throw error
    }
    return element
  }

  /// The next element, or nil when the sequence ended. Fails, recording where it was
  /// called, when neither happens within `seconds` (throwing ``DeadlineExceeded``).
  ///
  /// ```swift
  /// task.cancel()
  /// #expect(try await values.nextOrEnd("the end of the cancelled sequence") == nil)
  /// ```
  public func nextOrEnd(
    _ what: @autoclosure () -> String,
    seconds: Double = Deadline.defaultSeconds,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) async throws -> Element? {
    let description = what()
    let refusal = state.withLock { state -> String? in
      if let earlier = state.abandonedFor {
        return "a wait for \(earlier) timed out and still holds the iterator"
      }
      if let earlier = state.waitingFor {
        return "another task is waiting for \(earlier) (one task uses a DeadlineIterator at a time)"
      }
      state.waitingFor = description
      return nil
    }
    if let refusal {
      reportIssue("Cannot wait for \(description): \(refusal)", fileID: fileID, filePath: filePath, line: line, column: column)
      throw IteratorUnavailable(what: description, reason: refusal)
    }
    do {
      return try await withDeadline(
        description, seconds: seconds, fileID: fileID, filePath: filePath, line: line, column: column
      ) { [self] in
        try await self.advance()
      }
    } catch let error as DeadlineExceeded {
      state.withLock { $0.abandonedFor = description }
      throw error
    }
  }

  /// One `next()` of the iterator, taken out of `state` while it runs.
  private func advance() async throws -> Element? {
    var iterator = state.withLock { $0.iterator.take() }!
    defer {
      state.withLock {
        $0.iterator = iterator
        $0.waitingFor = nil
      }
    }
    return try await iterator.next()
  }
}

/// An asynchronous sequence that ended before the element a test waited for.
///
/// ```swift
/// SequenceEnded(what: "the change set of revision 3").description
/// // "The sequence ended while waiting for the change set of revision 3"
/// ```
public struct SequenceEnded: Error, CustomStringConvertible, Sendable {
  /// The element that was waited for.
  public var what: String

  public init(what: String) { self.what = what }

  public var description: String { "The sequence ended while waiting for \(what)" }
}

/// A ``DeadlineIterator`` asked for an element while it could not give one: another task
/// was waiting on it, or an earlier wait timed out.
public struct IteratorUnavailable: Error, CustomStringConvertible, Sendable {
  /// The element that was asked for.
  public var what: String
  /// Why it could not be waited for.
  public var reason: String

  public var description: String { "Cannot wait for \(what): \(reason)" }
}
