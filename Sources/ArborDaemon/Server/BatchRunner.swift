import ArborRPC
import NIOCore

/// One batch being handled on its connection's event loop, a slice at a time.
///
/// A batch may hold 100,000 requests. Handled in one go, it would hold the event loop (and
/// every other connection on it) for seconds; so ``RequestStage`` handles its
/// requests, in order, for at most ``sliceBudget`` at a time, and schedules the rest
/// ``sliceGap`` later, which lets the loop read and write its other channels in between.
/// The replies are collected here and sent as one array line once the last request is
/// done. Used on the event loop only.
final class BatchRun {
  /// The longest a batch runs before the loop serves its other channels (2 ms).
  static let sliceBudget = TimeAmount.milliseconds(2)
  /// How far ahead the next slice is scheduled (50 µs). Not zero: an event loop runs the
  /// tasks that are ready before it polls its sockets again, and a task that re-submits
  /// itself with `execute` would be ready at once, forever, and starve them. A task due
  /// later than the end of this tick lets the loop poll first.
  static let sliceGap = TimeAmount.microseconds(50)

  private(set) var calls: [RPCInbound.Call]
  let connection: ConnectionContext
  /// Where the next slice starts.
  private(set) var next = 0
  var replies: [RPCResponse] = []
  /// Replies that wait for the journal (`--fsync always`): the batch's reply is sent once
  /// the newest of them is durable.
  var durable: [(index: Int, revision: UInt64)] = []
  /// A reply holds a large value (``RequestStage/offLoopValues``): the batch's line is
  /// encoded off the loop however few replies it has.
  var holdsLargeReply = false
  /// The batch holds its connection's place (later lines wait for it): it was parsed off
  /// the loop, or it has needed more than one slice.
  var holdsPlace: Bool

  init(calls: [RPCInbound.Call], connection: ConnectionContext, holdsPlace: Bool) {
    self.calls = calls
    self.connection = connection
    self.holdsPlace = holdsPlace
  }

  /// The next call to handle, if any is left.
  func nextCall() -> RPCInbound.Call? {
    guard next < calls.count else { return nil }
    defer { next += 1 }
    return calls[next]
  }

  var hasMore: Bool { next < calls.count }

  /// The calls not handled yet.
  var rest: ArraySlice<RPCInbound.Call> { calls[next...] }

  /// The calls and the replies, which the run no longer holds: the caller lets go of
  /// them where it suits (off the event loop, for a large batch).
  func takeCallsAndReplies() -> (calls: [RPCInbound.Call], replies: [RPCResponse]) {
    defer {
      calls = []
      replies = []
      next = 0
    }
    return (calls, replies)
  }
}
