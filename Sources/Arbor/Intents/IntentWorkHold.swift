import Synchronization

/// One unit of an intent's work that is not a task: an event the intent sent, on its way
/// to one listener and then in that listener's handler. While it is held, a call with
/// ``IntentWait/settled`` does not reply; it is released once, explicitly when the handler
/// is done, or when the last reference goes (a delivery dropped unread).
final class IntentWorkHold: Sendable {
  let work: IntentWork
  private let released = Atomic<Bool>(false)

  init(_ work: IntentWork) {
    self.work = work
    work.started()
  }

  /// Ends this unit of the work; later calls do nothing.
  func release() {
    guard !released.exchange(true, ordering: .acquiringAndReleasing) else { return }
    work.ended()
  }

  deinit { release() }
}
