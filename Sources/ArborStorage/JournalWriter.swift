import ArborLocking
import Dispatch
import Foundation
import Synchronization

/// Appends committed revisions to a store (any ``StateStore``) in the order they are
/// submitted, sharing one transaction among all the revisions submitted while the previous
/// one was being written (group commit): with many clients, each transaction (and its
/// fsync) carries many revisions, so throughput grows with the number of clients.
///
/// ``submit(_:)`` never waits: a daemon calls it from its commit path, in revision order.
/// With `.always` the writer starts at once and ``durable(through:)`` returns when a
/// revision's transaction is committed and synced; with `.batch` and `.off` the writer
/// starts at most `window` after the first revision that waits.
///
/// ```swift
/// let writer = JournalWriter(store: store)
/// writer.submit(JournalEntry(revision: 7, time: Date(), patch: changeSet.patch))
/// try await writer.durable(through: 7)   // then reply to the client
/// ```
public final class JournalWriter: Sendable {
  public let store: any StateStore
  /// How long a revision may wait to be written under `.batch` and `.off`.
  public let window: Duration

  private struct Waiter {
    let revision: UInt64
    let done: @Sendable (StoreError?) -> Void
  }

  private struct State {
    var queue: [JournalEntry] = []
    var waiters: [Waiter] = []
    /// A task is writing (and writes what is queued before it stops).
    var writing = false
    /// A start of the writer is scheduled (`.batch`, `.off`).
    var scheduled = false
    var transactions = 0
    /// The newest revision submitted, and the newest written.
    var submitted: UInt64 = 0
    var written: UInt64 = 0
    var failure: StoreError?
  }

  private let state = LockedState(State())
  /// Told the newest written revision after each write that advanced it.
  private let writtenObserver = LockedState<(@Sendable (UInt64) -> Void)?>(nil)
  private let transactionObserver = LockedState<(@Sendable (Duration, Int) -> Void)?>(nil)
  /// Whether `failure` is set, readable without the lock (checked before every intent).
  private let failed = Atomic<Bool>(false)
  /// Wakes the writer's thread: signalled once each time `writing` turns true.
  private let wake = DispatchSemaphore(value: 0)

  /// `start` is the revision the journal holds up to already (a new writer waits for no
  /// earlier revision).
  public init(store: any StateStore, after start: UInt64 = 0, window: Duration = .milliseconds(100)) {
    self.store = store
    self.window = window
    state.withLock {
      $0.submitted = start
      $0.written = start
    }
    Self.startThread(for: self)
  }

  /// Transactions written so far, and the newest revision written.
  public var progress: (transactions: Int, revision: UInt64) {
    state.withLock { ($0.transactions, $0.written) }
  }

  /// How many submitted revisions are not written yet: the persistence lag.
  public var lag: UInt64 { state.withLock { $0.submitted - $0.written } }

  /// Queues a committed revision for the journal. Call in revision order; never waits.
  public func submit(_ entry: JournalEntry) {
    enum Next { case nothing, start, schedule }
    let next: Next = state.withLock { state in
      state.queue.append(entry)
      state.submitted = max(state.submitted, entry.revision)
      // After a failure the queue is held for ``retry()``.
      if state.writing || state.failure != nil { return .nothing }
      if store.fsync == .always {
        state.writing = true
        return .start
      }
      if state.scheduled { return .nothing }
      state.scheduled = true
      return .schedule
    }
    switch next {
    case .nothing: break
    case .start: wake.signal()
    case .schedule:
      Task {
        try? await Task.sleep(for: self.window)
        self.kick()
      }
    }
  }

  /// Returns once every revision up to `revision` is written (committed, and synced under
  /// `.always`); throws the store's error if writing failed.
  public func durable(through revision: UInt64) async throws(StoreError) {
    let failure: StoreError? = await withCheckedContinuation { continuation in
      whenDurable(through: revision) { continuation.resume(returning: $0) }
    }
    if let failure { throw failure }
  }

  /// Calls `done` once every revision up to `revision` is written (with nil), or writing
  /// failed (with the error): at once when that is already so, else on the thread that
  /// finished the write. Starts a write now when one is not under way.
  ///
  /// ```swift
  /// writer.whenDurable(through: 7) { error in eventLoop.execute { reply(error) } }
  /// ```
  public func whenDurable(through revision: UInt64, _ done: @escaping @Sendable (StoreError?) -> Void) {
    enum Next { case failed(StoreError), done, wait, start }
    let next: Next = state.withLock { state in
      if state.written >= revision { return .done }
      if let failure = state.failure { return .failed(failure) }
      state.waiters.append(Waiter(revision: revision, done: done))
      guard !state.writing else { return .wait }
      // Someone waits: write now rather than at the end of the window.
      state.writing = true
      state.scheduled = false
      return .start
    }
    switch next {
    case .failed(let failure): done(failure)
    case .done: done(nil)
    case .wait: break
    case .start: wake.signal()
    }
  }

  /// Calls `body` with the newest written revision after every write that advanced it (on
  /// the thread that wrote), before the waiters of ``durable(through:)`` are released: what
  /// is shown only once it is kept (watchers under `--fsync always`) is shown before the
  /// reply that waited for it. One observer; a second replaces the first.
  ///
  /// ```swift
  /// writer.observeWritten { revision in hub.release(through: revision) }
  /// ```
  public func observeWritten(_ body: @escaping @Sendable (UInt64) -> Void) {
    writtenObserver.withLock { $0 = body }
  }

  /// Calls `body` after every journal transaction the writer's thread commits, with how
  /// long it took (the write and, unless `--fsync off`, its sync) and how many revisions it
  /// held. One observer; a second replaces the first.
  ///
  /// ```swift
  /// writer.observeTransactions { duration, revisions in histogram.record(duration) }
  /// ```
  public func observeTransactions(_ body: @escaping @Sendable (Duration, Int) -> Void) {
    transactionObserver.withLock { $0 = body }
  }

  private func tellWritten(_ revision: UInt64) {
    if let observer = writtenObserver.withLock({ $0 }) { observer(revision) }
  }

  /// Counts every revision up to `revision` as written: a snapshot of that revision was
  /// saved, so the revisions before it need no journal entry. Waiters up to it are released.
  public func advance(to revision: UInt64) {
    let (ready, written) = state.withLock { state -> ([Waiter], UInt64) in
      state.submitted = max(state.submitted, revision)
      state.written = max(state.written, revision)
      return (Self.takeReady(&state), state.written)
    }
    tellWritten(written)
    for waiter in ready { waiter.done(nil) }
  }

  private static func takeReady(_ state: inout State) -> [Waiter] {
    let written = state.written
    guard state.waiters.contains(where: { $0.revision <= written }) else { return [] }
    let ready = state.waiters.filter { $0.revision <= written }
    state.waiters.removeAll { $0.revision <= written }
    return ready
  }

  /// The error that stopped the writer, if one did: nothing is written after it until
  /// ``retry()`` succeeds. The revisions submitted meanwhile are held, in order.
  public var failure: StoreError? { state.withLock { $0.failure } }

  /// Whether writing failed and has not been retried with success: cheap, no lock.
  public var hasFailed: Bool { failed.load(ordering: .acquiring) }

  /// After a failure: writes what is held (or, when nothing is, a probe write) on the
  /// calling thread, which waits for the disk, so never a thread of the cooperative pool or
  /// an event loop. On success the writer goes on as before and nil is returned; else the
  /// error, and the revisions stay held. Without a failure it does nothing.
  ///
  /// ```swift
  /// while writer.failure != nil, let error = writer.retry() { print(error); sleep(1) }
  /// ```
  @discardableResult
  public func retry() -> StoreError? {
    let batch: [JournalEntry]? = state.withLock { state in
      guard state.failure != nil, !state.writing else { return nil }
      state.writing = true
      return state.queue
    }
    guard let batch else { return nil }
    do {
      if batch.isEmpty {
        try store.probeWrite()
      } else {
        try store.appendNow(batch)
      }
    } catch {
      state.withLock { state in
        state.failure = error
        state.writing = false
      }
      return error
    }
    let (ready, more, written) = state.withLock { state -> ([Waiter], Bool, UInt64) in
      state.queue.removeFirst(batch.count)
      if !batch.isEmpty { state.transactions += 1 }
      state.written = max(state.written, batch.last?.revision ?? state.written)
      state.failure = nil
      failed.store(false, ordering: .releasing)
      let more = !state.queue.isEmpty
      state.writing = more
      return (Self.takeReady(&state), more, state.written)
    }
    if !batch.isEmpty { tellWritten(written) }
    for waiter in ready { waiter.done(nil) }
    if more { wake.signal() }
    return nil
  }

  /// Submits a revision and, under `.always`, waits until it is durable.
  public func append(_ entry: JournalEntry) async throws(StoreError) {
    submit(entry)
    if store.fsync == .always { try await durable(through: entry.revision) }
  }

  /// Returns once everything submitted so far is written.
  public func flush() async throws(StoreError) {
    try await durable(through: state.withLock { $0.submitted })
  }

  /// Starts writing what is queued, unless a write is under way (it takes it next).
  private func kick() {
    let start = state.withLock { state -> Bool in
      state.scheduled = false
      guard !state.writing, state.failure == nil, !state.queue.isEmpty else { return false }
      state.writing = true
      return true
    }
    if start { wake.signal() }
  }

  /// The writer's own thread: waits to be woken, then writes what is queued. A thread of
  /// its own (not the cooperative pool's) because a write blocks until the disk has it.
  private static func startThread(for writer: JournalWriter) {
    let wake = writer.wake
    let reference = WeakWriter(writer)
    let thread = Thread {
      while true {
        wake.wait()
        guard let writer = reference.writer else { return }
        writer.drain()
      }
    }
    thread.name = "arbor-journal"
    thread.start()
  }

  // The thread wakes, finds its writer gone, and ends.
  deinit { wake.signal() }

  /// Writes transaction after transaction, in order, until nothing is queued. Runs on the
  /// writer's thread only.
  private func drain() {
    while true {
      let batch = state.withLock { state -> [JournalEntry] in
        defer { state.queue = [] }
        if state.queue.isEmpty { state.writing = false }
        return state.queue
      }
      guard !batch.isEmpty else { return }
      do {
        let started = ContinuousClock.now
        try store.appendNow(batch)
        if let observer = transactionObserver.withLock({ $0 }) { observer(ContinuousClock.now - started, batch.count) }
        if let revision = CrashPoint.afterCommit, let last = batch.last?.revision, last >= revision { CrashPoint.crash() }
        let (ready, written) = state.withLock { state -> ([Waiter], UInt64) in
          state.transactions += 1
          state.written = max(state.written, batch.last?.revision ?? state.written)
          return (Self.takeReady(&state), state.written)
        }
        tellWritten(written)
        for waiter in ready { waiter.done(nil) }
      } catch {
        // Held, not dropped: the batch goes back in front of what came meanwhile, for
        // `retry()`. Whoever waits is told now.
        let waiters = state.withLock { state -> [Waiter] in
          state.failure = error
          failed.store(true, ordering: .releasing)
          state.queue = batch + state.queue
          state.writing = false
          defer { state.waiters = [] }
          return state.waiters
        }
        for waiter in waiters { waiter.done(error) }
        return
      }
    }
  }
}

/// The writer's thread holds its writer weakly, so that the writer (and the thread) go
/// when nothing else holds it.
private final class WeakWriter: Sendable {
  weak let writer: JournalWriter?
  init(_ writer: JournalWriter) { self.writer = writer }
}
