import ArborJSON
import ArborRPC

/// A value at a path of the daemon's state, kept current: an `AsyncSequence` of
/// ``StateUpdate``s, the first with the value, then one per revision that changed it,
/// with the daemon's patch already applied.
///
/// When the connection is lost (the daemon restarts, or is killed and started again), the
/// watch connects again per its ``ReconnectPolicy`` and resumes with `since` set to the
/// last revision it delivered: it sees every revision once, in order, with no gap. When
/// the daemon cannot resume from there (that revision was lost in a crash under
/// `--fsync batch`, or is older than the history kept), the next update is a
/// ``StateUpdate/Kind/resync`` with the whole value.
///
/// ```swift
/// let client = ArborClient(socketPath: socket)
/// for try await update in client.watch("/counters", since: 12) {
///   print(update.revision, update.value?.arrayValue?.count ?? 0)
/// }
/// ```
///
/// The first connection must succeed: a daemon that is not running fails the watch at
/// once with ``ArborClientError/cannotConnect(path:reason:)``. Cancelling the iterating
/// task ends the watch and closes its connection.
public struct StateWatch: AsyncSequence, Sendable {
  public typealias Element = StateUpdate

  let client: ArborClient
  let path: String
  let since: UInt64?
  let onConnection: (@Sendable (WatchConnectionEvent) -> Void)?

  public func makeAsyncIterator() -> AsyncThrowingStream<StateUpdate, any Error>.Iterator {
    let (stream, continuation) = AsyncThrowingStream.makeStream(of: StateUpdate.self, bufferingPolicy: .unbounded)
    let (client, path, since, onConnection) = (self.client, self.path, self.since, self.onConnection)
    let task = Task {
      let follower = StateFollower(path: path, since: since, yield: { continuation.yield($0) })
      do {
        try await WatchLoop(client: client, onConnection: onConnection).run { connection throws(ArborClientError) in
          try await follower.follow(on: connection, report: onConnection)
        }
        continuation.finish()
      } catch {
        continuation.finish(throwing: error)
      }
    }
    continuation.onTermination = { _ in task.cancel() }
    return stream.makeAsyncIterator()
  }
}

/// The value a state watch has built so far, and how to go on from it on a connection.
/// It lives in the watch's task and never leaves it.
private final class StateFollower {
  private let path: String
  private let since: UInt64?
  private let yield: @Sendable (StateUpdate) -> Void
  private var value: JSONValue?
  private var revision: UInt64?

  init(path: String, since: UInt64?, yield: @escaping @Sendable (StateUpdate) -> Void) {
    self.path = path
    self.since = since
    self.yield = yield
  }

  /// Subscribes on `connection` (fresh, resuming, or at the `since` given), then applies
  /// its notifications until the connection closes.
  func follow(on connection: ArborConnection, report: (@Sendable (WatchConnectionEvent) -> Void)?) async throws(ArborClientError) {
    let subscription: Int64?
    if let revision {
      subscription = try await resume(on: connection, from: revision)
    } else if let since {
      let base = try await valueAt(since, on: connection)
      let reply = try await connection.call(StateWatchMethod.self, .init(path: path, since: since))
      (value, revision) = (base, since)
      yield(StateUpdate(revision: since, value: base, kind: .initial))
      subscription = Int64(reply.subscription)
    } else {
      subscription = try await start(on: connection, kind: .initial)
    }
    guard let subscription else { throw .malformedReply("state.watch replied without a subscription") }
    report?(.subscribed(revision: revision ?? 0))
    for await notification in connection.notifications {
      guard let params = notification.params, params["subscription"]?.intValue == subscription else { continue }
      switch notification.method {
      case ArborNotification.stateChanged.rawValue: try apply(params)
      case ArborNotification.watchClosed.rawValue: throw .watchClosed(subscription: subscription, reason: params["reason"]?.stringValue ?? "no reason given")
      default: continue
      }
    }
  }

  /// A watch without `since`: the value now.
  private func start(on connection: ArborConnection, kind: StateUpdate.Kind) async throws(ArborClientError) -> Int64? {
    let reply = try await connection.call(StateWatchMethod.self, .init(path: path))
    (value, revision) = (reply.value, reply.revision)
    yield(StateUpdate(revision: reply.revision, value: value, kind: kind))
    return Int64(reply.subscription)
  }

  /// A watch from the last revision delivered; a fresh one (delivered as a resync) when
  /// the daemon no longer has that revision, never had it, or has another revision under
  /// its number.
  ///
  /// A daemon that stopped before its last revisions reached the journal (`kill -9` under
  /// `--fsync batch` or `off`) starts again from the last one kept and numbers its next
  /// commits as the lost ones were numbered: `since` would then name a revision the daemon
  /// holds, but not the one this watch saw, and the patches after it would not reproduce
  /// the state. So the value at `revision` is read back first (`state.at`) and compared
  /// with the one held: equal, the patches apply to it whatever happened to the history;
  /// different, the watch starts again from the daemon's value.
  private func resume(on connection: ArborConnection, from revision: UInt64) async throws(ArborClientError) -> Int64? {
    do {
      let kept = try await connection.call(StateAt.self, .init(revision: revision, path: path)).value
      guard kept == value else { return try await start(on: connection, kind: .resync) }
      return Int64(try await connection.call(StateWatchMethod.self, .init(path: path, since: revision)).subscription)
    } catch .daemon(let error) where error.is(.revisionCompacted) || error.code == -32602 || error.is(.pathNotFound) {
      return try await start(on: connection, kind: .resync)
    }
  }

  /// The value at `revision` read back from the daemon's history; nil when the path did
  /// not exist then.
  private func valueAt(_ revision: UInt64, on connection: ArborConnection) async throws(ArborClientError) -> JSONValue? {
    do {
      return try await connection.call(StateAt.self, .init(revision: revision, path: path)).value
    } catch .daemon(let error) where error.is(.pathNotFound) {
      return nil
    }
  }

  /// One `state.changed` notification: a patch, or a resync with the whole value.
  private func apply(_ params: JSONValue) throws(ArborClientError) {
    guard let raw = params["revision"]?.intValue else { throw .malformedReply("state.changed without a revision") }
    let revision = UInt64(raw)
    let exists = params["exists"]?.boolValue ?? true
    if params["resync"]?.boolValue == true {
      value = exists ? params["value"] : nil
      self.revision = revision
      yield(StateUpdate(revision: revision, value: value, kind: .resync))
      return
    }
    let patch: JSONPatch
    do {
      patch = try JSONPatch(json: params["patch"] ?? .null)
    } catch {
      throw .malformedReply("the patch of revision \(revision) is not a JSON Patch: \(error)")
    }
    if exists {
      do {
        try patch.apply(to: &value[default: .null])
      } catch {
        throw .patchFailed(revision: revision, reason: "\(error)")
      }
    } else {
      value = nil
    }
    self.revision = revision
    yield(StateUpdate(revision: revision, value: value, kind: .patch(patch)))
  }
}

extension Optional where Wrapped == JSONValue {
  /// The value, with `fallback` in its place while it is nil, for changing in place.
  fileprivate subscript(default fallback: JSONValue) -> JSONValue {
    get { self ?? fallback }
    set { self = newValue }
  }
}
