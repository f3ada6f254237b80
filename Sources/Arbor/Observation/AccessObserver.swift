import ArborLocking
import Synchronization

/// The dependencies of one observation and the wake-up signal shared with its consumer.
///
/// Changes mark it dirty and resume a waiting consumer; a burst of changes before the
/// consumer runs again is one wake-up. Its own state is guarded by `state`, a lock that is
/// never held while a tree lock is taken.
@usableFromInline
final class AccessObserver: Sendable {
  private struct Registration: Sendable {
    let context: AnyModelContext
    let property: Int
  }

  private struct State: Sendable {
    var dirty = false
    /// A dependency was touched: the next value is delivered even if it equals the last.
    var touched = false
    var waiter: CheckedContinuation<Void, Never>?
    var cancelled = false
  }

  private let state = LockedState(State())
  /// `State.dirty`, readable without the lock: a change that finds the observation dirty
  /// already has nobody to wake (a consumer only waits while it is clean), so it only
  /// reads this, and the writer and the consumer do not pass the lock's memory back and
  /// forth at every write of a burst. Written under `state`'s lock, with `dirty`.
  private let dirtyNow = Atomic<Bool>(false)
  private let registrationsLock = LockedState<[Registration]>([])
  /// Called after each change is noted (memoized values invalidate through it). Never
  /// called with a tree lock held.
  private let onChange: (@Sendable () -> Void)?

  init(onChange: (@Sendable () -> Void)? = nil) {
    self.onChange = onChange
  }

  /// Called by a context (its lock held) when a read registered this observer.
  func didRegister(on context: AnyModelContext, property: Int) {
    registrationsLock.withLock { $0.append(Registration(context: context, property: property)) }
  }

  /// The contexts and properties registered so far.
  func registrations() -> [(AnyModelContext, Int)] {
    registrationsLock.withLock { $0.map { ($0.context, $0.property) } }
  }

  /// Drops every registration. Takes the contexts' locks, one at a time.
  func unregisterAll() {
    let registrations = registrationsLock.withLock {
      let all = $0
      $0 = []
      return all
    }
    for registration in registrations {
      registration.context.unregister(self, property: registration.property)
    }
  }

  /// Evaluates `body`, recording its reads as the new set of dependencies.
  func track<R>(_ body: () -> R) -> R {
    unregisterAll()
    state.withLock {
      $0.dirty = false
      dirtyNow.store(false, ordering: .releasing)
    }
    return AccessTracking.recording(self, body)
  }

  /// Whether a change can skip this observer: it is dirty already (its consumer has not
  /// evaluated since the last change, so it is not waiting) and nothing else is to be told
  /// of each change (no `onChange`). Read by the writer with the tree lock held, after the
  /// change is stored: the consumer clears the mark before its reads, which take that lock,
  /// so a change it will not read finds the mark clear and is handed on.
  @inline(__always)
  var absorbsChange: Bool { onChange == nil && dirtyNow.load(ordering: .acquiring) }

  /// Marks the observation dirty and wakes its consumer. Never called with a tree lock held.
  func notify() {
    // Dirty already: the consumer has not evaluated since the last change, so it is not
    // waiting. (Its clearing of the mark happens before its reads, which take the tree
    // lock this change's write held: a change it did not read finds the mark clear.)
    if dirtyNow.load(ordering: .acquiring) {
      onChange?()
      return
    }
    let waiter: CheckedContinuation<Void, Never>? = state.withLock {
      $0.dirty = true
      dirtyNow.store(true, ordering: .releasing)
      let waiter = $0.waiter
      $0.waiter = nil
      return waiter
    }
    waiter?.resume()
    onChange?()
  }

  /// Suspends until a dependency changes; returns false if the task was cancelled.
  func waitForChange() async -> Bool {
    await withTaskCancellationHandler {
      await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        let resumeNow: Bool = state.withLock {
          if $0.dirty || $0.cancelled { return true }
          $0.waiter = continuation
          return false
        }
        if resumeNow { continuation.resume() }
      }
    } onCancel: {
      let waiter: CheckedContinuation<Void, Never>? = state.withLock {
        $0.cancelled = true
        let waiter = $0.waiter
        $0.waiter = nil
        return waiter
      }
      waiter?.resume()
    }
    return !Task.isCancelled && !state.withLock { $0.cancelled }
  }

  /// Records that a dependency was touched (`node.touch`). Called with a tree lock held:
  /// this observer's lock never takes a tree lock, so the order is safe.
  func markTouched() {
    state.withLock { $0.touched = true }
  }

  /// Whether a dependency was touched since the last call; clears the mark.
  func takeTouched() -> Bool {
    state.withLock {
      let touched = $0.touched
      $0.touched = false
      return touched
    }
  }

  /// Whether a dependency changed since the last evaluation.
  func peekDirty() -> Bool { state.withLock { $0.dirty } }
}
