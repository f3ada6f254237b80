import Arbor
import Foundation
import ConcurrencyExtras
import Testing

/// A stack whose first `push` holds its thread until the test lets it go: the window in
/// which a commit is visible but its step is not yet on the stack.
private final class HeldPushStack: UndoBackend {
  let stack = ModelUndoStack()
  /// Signalled when the first push has begun.
  let pushBegan = DispatchSemaphore(value: 0)
  /// Taken by the first push only.
  private let firstPush = DispatchSemaphore(value: 1)

  var canUndo: Bool { stack.canUndo }
  var canRedo: Bool { stack.canRedo }

  func push(_ entry: ModelUndoEntry) {
    if firstPush.wait(timeout: .now()) == .success {
      pushBegan.signal()
      // Long enough that an undo which does not wait for this push runs before it ends.
      Thread.sleep(forTimeInterval: 0.3)
    }
    stack.push(entry)
  }

  func undo() { stack.undo() }
  func redo() { stack.redo() }
  func observeAvailability(_ onChange: @escaping @Sendable () -> Void) -> UndoAvailabilityObservation {
    stack.observeAvailability(onChange)
  }
}

/// Steps reach the backend after their commit, outside the tree's lock, on the committing
/// thread: `undo()` from another thread in between must still undo that commit.
@Suite struct UndoDeliveryTests {
  /// Found as a rare failure of the Todos example's tests: an event handler's task
  /// removed an item, the test saw the list empty and undid, and the undo took the step
  /// before the removal (the item's toggle), because the removal's step was still on its
  /// way to the stack.
  @Test func anUndoRightAfterAnotherThreadsCommitUndoesThatCommit() async throws {
    let backend = HeldPushStack()
    let editor = UndoEditor().withAnchor { $0.undoSystem.backend = backend }
    let committed = DispatchSemaphore(value: 0)
    // Both sides on threads of their own: the held push and the undo's wait must not hold
    // the cooperative pool's two threads.
    Thread {
      editor.title = "Draft"
      committed.signal()
    }.start()
    let seen: (String, String, Bool) = await withCheckedContinuation { continuation in
      Thread {
        _ = backend.pushBegan.wait(timeout: .now() + 10)
        let beforeUndo = editor.title
        editor.node.undoSystem.undo()
        let afterUndo = editor.title
        _ = committed.wait(timeout: .now() + 10)
        continuation.resume(returning: (beforeUndo, afterUndo, backend.canRedo))
      }.start()
    }
    #expect(seen.0 == "Draft", "the commit is visible before its step reaches the stack")
    #expect(seen.1 == "", "the undo waited for the step and undid the commit")
    #expect(seen.2, "the undone step can be redone")
  }

  /// A backend that undoes from its own `push` (through `node.undoSystem`) is not made to
  /// wait for itself.
  @Test func aBackendThatUndoesFromItsOwnPushDoesNotWaitForItself() async throws {
    final class UndoingStack: UndoBackend {
      let stack = ModelUndoStack()
      let editor = LockIsolated<UndoEditor?>(nil)
      var canUndo: Bool { stack.canUndo }
      var canRedo: Bool { stack.canRedo }
      func push(_ entry: ModelUndoEntry) {
        stack.push(entry)
        editor.value?.node.undoSystem.undo()
      }
      func undo() { stack.undo() }
      func redo() { stack.redo() }
      func observeAvailability(_ onChange: @escaping @Sendable () -> Void) -> UndoAvailabilityObservation {
        stack.observeAvailability(onChange)
      }
    }
    let backend = UndoingStack()
    let editor = UndoEditor().withAnchor { $0.undoSystem.backend = backend }
    backend.editor.setValue(editor)
    let title: String? = await withCheckedContinuation { continuation in
      let done = DispatchSemaphore(value: 0)
      Thread {
        editor.title = "Draft"
        done.signal()
      }.start()
      Thread {
        let finished = done.wait(timeout: .now() + 10) == .success
        continuation.resume(returning: finished ? editor.title : nil)
      }.start()
    }
    #expect(title == "", "the push undid its own step, and the commit's thread went on")
  }

  /// An undo inside a transaction does not wait for another thread's push: that push may be
  /// waiting for the tree's lock, which the transaction holds (the stack tells its
  /// observers, and the tree's `canUndo` takes the lock).
  @Test func anUndoInsideATransactionDoesNotWaitForAPushThatWaitsForTheLock() async throws {
    let backend = HeldPushStack()
    let editor = UndoEditor().withAnchor { $0.undoSystem.backend = backend }
    _ = editor.node.undoSystem.canUndo  // the tree's recorder observes the stack from now on
    let committed = DispatchSemaphore(value: 0)
    Thread {
      editor.title = "Draft"
      committed.signal()
    }.start()
    let undone = DispatchSemaphore(value: 0)
    Thread {
      _ = backend.pushBegan.wait(timeout: .now() + 10)
      editor.node.transaction { editor.node.undoSystem.undo() }
      undone.signal()
    }.start()
    // Waited for on a thread of its own, with a deadline: a deadlock leaves both threads
    // blocked, and the test fails instead of hanging.
    let finished: Bool = await withCheckedContinuation { continuation in
      Thread {
        let both = undone.wait(timeout: .now() + 10) == .success && committed.wait(timeout: .now() + 10) == .success
        continuation.resume(returning: both)
      }.start()
    }
    #expect(finished, "the undo returned, and the committing thread's push went on once the transaction ended")
    #expect(backend.canUndo, "the held step reached the stack")
  }
}
