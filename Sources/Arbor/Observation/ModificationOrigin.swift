import Synchronization

/// Who committed a transaction, as far as observers of modifications care: the task that
/// committed it, and the observer whose handler it ran in (``ModificationObserver/current``).
/// Noted only while some stream of ``Model/observeModifications(scope:kinds:where:)`` or
/// ``Model/observeAnyModification()`` exists in the tree.
struct ModificationOrigin: Sendable, Hashable {
  /// The committing task (its identity while it runs); nil outside a task.
  var task: Int?
  /// The observer whose handler made the write.
  var observer: ObjectIdentifier?

  /// The origin of a commit made here, now.
  static func current() -> ModificationOrigin {
    ModificationOrigin(task: currentTaskIdentity(), observer: ModificationObserver.current.map(ObjectIdentifier.init))
  }
}

/// The identity of the task running now, stable while it runs (two tasks alive at once
/// never share one); nil outside a task.
func currentTaskIdentity() -> Int? {
  withUnsafeCurrentTask { task in task?.hashValue }
}

/// One stream of modifications, and what counts as its own writes: those committed by the
/// task that iterates it (between one element and the next), and those made inside
/// `node.forEach`'s handler of its elements, including the tasks that handler starts. A
/// stream never emits for its own writes, so an observer that writes what it observes runs
/// once per outside change instead of feeding itself forever.
final class ModificationObserver: Sendable {
  /// The observer whose handler is running (`node.forEach` sets it).
  @TaskLocal static var current: ModificationObserver?

  /// The task that last asked the stream for an element; 0 before any.
  private let iteratingTask = Atomic<Int>(0)

  /// Notes the task that iterates the stream: called by the iterator's `next()`.
  func iterating() {
    iteratingTask.store(currentTaskIdentity() ?? 0, ordering: .relaxed)
  }

  /// Whether a commit of `origin` is this observer's own write.
  func owns(_ origin: ModificationOrigin?) -> Bool {
    guard let origin else { return false }
    if origin.observer == ObjectIdentifier(self) { return true }
    guard let task = origin.task else { return false }
    return task == iteratingTask.load(ordering: .relaxed)
  }
}

/// A stream of modifications whose own writes do not make it emit (`node.forEach` runs
/// its handler as the stream's observer).
protocol ObservingModifications {
  var observer: ModificationObserver { get }
}
