import NIOCore

extension RequestStage {
  /// What a connection's ``RequestStage`` knows, and the rules that change it: which lines
  /// wait and which may start, how many requests run and how many of them hold the
  /// connection's place, whether a read is held, whether the client will send more, and
  /// what memory to give back. No I/O: each event is a `mutating` function that returns
  /// the ``Action`` the stage then runs (``RequestStage/run(_:)``), in the shape of
  /// NIOHTTP1's `HTTPServerPipelineHandler` and postgres-nio's `ConnectionStateMachine`.
  ///
  /// Starting the lines that wait is a loop between the two: the stage takes each line
  /// that may start (``nextLine()``), starts it (which may change what this holds: a task,
  /// a held place), and asks ``linesStarted()`` what follows once none may.
  struct StateMachine {
    /// Where the connection is.
    enum Phase: Equatable {
      /// Reading requests; `readHeld`: a read was asked for while lines waited, and is
      /// made once they have started.
      case serving(readHeld: Bool)
      /// The client will send nothing more: it half-closed, or sent a line over the limit
      /// (`pendingErrorLimit`), whose error reply is sent once the running requests end.
      case inputClosed(pendingErrorLimit: Int?)
      /// The connection is gone; nothing more is done.
      case ended
    }

    /// What the stage does after an event.
    enum Action: Equatable {
      case none
      /// Start the lines that may start (``nextLine()`` until nil), then run
      /// ``linesStarted()``'s action.
      case startWaiting
      /// A line passed the limit (say so), then start the lines that may start.
      case lineTooLong(limit: Int)
      /// Pass the read on towards the socket.
      case read
      /// Queue the error reply of a line over `limit`, then let the outbox finish.
      case sendLineTooLongAndFinish(limit: Int)
      /// Let the outbox finish, unless the connection has watches (they are served
      /// until the client goes).
      case finishUnlessWatched
      /// Ask for memory to be given back, letting go of `marks`.
      case trim(marks: [ArenaMark])
      /// Ask for memory to be given back, letting go of `marks`, then start the lines
      /// that may start.
      case trimAndStartWaiting(marks: [ArenaMark])
    }

    private(set) var phase = Phase.serving(readHeld: false)
    /// Lines read and not yet started, because `--max-in-flight` requests are running or
    /// a place is held.
    private var waiting = CircularBuffer<InboundLine>()
    /// Requests running in tasks, waiting for the journal, or holding the connection's
    /// place (``hold()``).
    private(set) var running = 0
    /// Places held: while there are any, later lines wait.
    private(set) var holds = 0
    /// The batch being handled in slices.
    private(set) var batch: BatchRun?
    /// A line or a reply of at least ``MemoryTrim/largeBytes`` went through since the
    /// last trim was asked for: ask again once the places are released, or the
    /// connection ends.
    private(set) var trimWhenDone = false
    /// The arenas of the threads that did this connection's large work off the loop.
    private var arenaMarks: [ArenaMark] = []
    /// `--max-in-flight`.
    let limit: Int

    init(limit: Int) {
      self.limit = max(1, limit)
    }

    var isEnded: Bool {
      if case .ended = phase { return true }
      return false
    }

    /// Lines waiting to start.
    var waitingCount: Int { waiting.count }

    /// Nothing waits, runs, is held or sliced: every line read so far has been answered (or
    /// its answer waits in the outbox, or for the journal).
    var isIdle: Bool { waiting.isEmpty && running == 0 && holds == 0 && batch == nil }

    // MARK: Reading

    /// A line was read.
    mutating func lineRead(_ line: InboundLine) -> Action {
      guard case .serving = phase else { return .none }
      if case .tooLong(let limit) = line {
        // What the framer held of the long line was let go of: give it back.
        trimWhenDone = true
        phase = .inputClosed(pendingErrorLimit: limit)
        return .lineTooLong(limit: limit)
      }
      waiting.append(line)
      return .startWaiting
    }

    /// The client half-closed.
    mutating func inputClosed() -> Action {
      guard case .serving = phase else { return .none }
      phase = .inputClosed(pendingErrorLimit: nil)
      return .startWaiting
    }

    /// The socket asks for more input: passed on unless lines wait (then held until they
    /// have started).
    mutating func readRequested() -> Action {
      guard case .serving = phase else { return .none }
      guard waiting.isEmpty else {
        phase = .serving(readHeld: true)
        return .none
      }
      return .read
    }

    /// The next waiting line, taken, if it may start now.
    mutating func nextLine() -> InboundLine? {
      guard !isEnded, holds == 0, running < limit else { return nil }
      return waiting.popFirst()
    }

    /// No more lines may start for now: the held read is made once none waits, and a
    /// connection whose client is done ends once every request has its reply.
    mutating func linesStarted() -> Action {
      switch phase {
      case .serving(readHeld: true) where waiting.isEmpty:
        phase = .serving(readHeld: false)
        return .read
      case .serving, .ended:
        return .none
      case .inputClosed(let pendingErrorLimit):
        guard waiting.isEmpty, running == 0 else { return .none }
        guard let pendingErrorLimit else { return .finishUnlessWatched }
        phase = .inputClosed(pendingErrorLimit: nil)
        return .sendLineTooLongAndFinish(limit: pendingErrorLimit)
      }
    }

    // MARK: Requests

    /// A line is being started: a large one asks for a trim once the work is done, and
    /// the arena its parse used is kept for it.
    mutating func lineStarted(large: Bool, mark: ArenaMark?) {
      if large { trimWhenDone = true }
      if let mark { arenaMarks.append(mark); trimWhenDone = true }
    }

    /// A request runs in a task or waits for the journal: it holds a place among the
    /// running requests until ``requestFinished()``.
    mutating func requestStarted() {
      running += 1
    }

    /// A request of ``requestStarted()`` ended.
    mutating func requestFinished() -> Action {
      running -= 1
      return .startWaiting
    }

    /// Holds the connection's place: its later lines wait, and it does not end.
    mutating func hold() {
      running += 1
      holds += 1
    }

    /// Releases a place taken by ``hold()``; once none is held, memory is given back if
    /// large work went through.
    mutating func release() -> Action {
      holds -= 1
      running -= 1
      guard holds == 0, trimWhenDone else { return .startWaiting }
      trimWhenDone = false
      defer { arenaMarks = [] }
      return .trimAndStartWaiting(marks: arenaMarks)
    }

    /// Keeps the mark of an arena that large work off the loop used, for the trim once it
    /// is all done; let go of at once if the connection has ended.
    mutating func keep(_ mark: ArenaMark) -> Action {
      guard !isEnded else { return .trim(marks: [mark]) }
      arenaMarks.append(mark)
      trimWhenDone = true
      return .none
    }

    // MARK: Batches

    /// A batch starts being handled in slices.
    mutating func batchStarted(_ run: BatchRun) {
      batch = run
    }

    /// The batch is done (or handed to a task).
    mutating func batchEnded() {
      batch = nil
    }

    // MARK: Lifetime

    /// The connection is gone: what waits is dropped, and memory given back if large work
    /// went through.
    mutating func end() -> Action {
      guard !isEnded else { return .none }
      phase = .ended
      waiting.removeAll()
      batch = nil
      guard trimWhenDone else { return .none }
      trimWhenDone = false
      defer { arenaMarks = [] }
      return .trim(marks: arenaMarks)
    }
  }
}
