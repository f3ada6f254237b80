import ArborLocking
import Arbor
import ArborRPC
import ArborClient
import ArborDaemon
import ArborJSON
import ArborTesting
import Dependencies
import Foundation

/// A model's tests, run again through a daemon's socket: the tester hosts the root in a
/// daemon in this process (on a temporary socket and state directory), calls intents over
/// the socket with `ArborClient`, and asserts with the same `assert`, `didSend` and
/// exhaustivity as ``ModelTester`` — state changes arrive as the patches of a watch of the
/// root, events as the notifications of an event watch.
///
/// ```swift
/// try await withDaemonTester(AppModel()) { model, tester in
///   try await tester.call("/", "addButtonTapped")
///   await tester.assert { model.counters.count == 1 }
/// }
/// ```
///
/// Predicates read the live model, as in-process tests do; a passing `assert` consumes
/// the patch operations at and under what it read. When the body returns, every patch
/// operation, event, task and installed probe call left unasserted is reported at the
/// line of `withDaemonTester`, and the daemon stops as under SIGTERM.
public final class DaemonTester<Root: Model>: Sendable {
  struct PendingOperation: Sendable {
    let path: String
    let text: String
    let revision: UInt64
  }

  struct PendingEvent: Sendable {
    let id: Int
    let text: String
    let tested: TestedEvent
  }

  private struct State: Sendable {
    var exhaustivity: Exhaustivity
    var operations: [PendingOperation] = []
    /// The root's state as the watch has it, and its revision.
    var mirror: JSONValue = .null
    var mirrorRevision: UInt64 = 0
    var events: [PendingEvent] = []
    var nextEventID = 0
    var probes: [TestProbe] = []
    var watchError: String?
    /// Events sent in the tree since the event watch subscribed, counted in this process
    /// the moment `node.send` returns; the watch has delivered them all once it has
    /// received at least as many.
    var eventsSent = 0
    var eventsReceived = 0
  }

  /// The daemon's socket.
  public let socket: String
  /// A client of the daemon.
  public let client: ArborClient
  private let anchor: ModelAnchor<Root>
  private let state: LockedState<State>

  private init(socket: String, anchor: ModelAnchor<Root>, exhaustivity: Exhaustivity) {
    self.socket = socket
    self.client = ArborClient(socketPath: socket, reconnect: .never)
    self.anchor = anchor
    self.state = LockedState(State(exhaustivity: exhaustivity))
  }

  /// What must be asserted by the end of the test; settable at any time.
  public var exhaustivity: Exhaustivity {
    get { state.withLock { $0.exhaustivity } }
    set { state.withLock { $0.exhaustivity = newValue } }
  }

  /// Includes a probe's calls in the `.probes` exhaustivity check.
  public func install(_ probe: TestProbe) {
    state.withLock { $0.probes.append(probe) }
  }

  /// Calls `intent` on the model at `target` (a JSON Pointer; `""` or `/` for the root)
  /// over the socket and returns the daemon's reply (`{revision, result}`); the daemon's
  /// refusal is thrown as ``ArborClientError/daemon(_:)``.
  @discardableResult
  public func call(_ target: String, _ intent: String, _ params: JSONValue = [:], settled: Bool = false) async throws -> JSONValue {
    try await call(target: .path(target == "/" ? "" : target), intent, params, settled: settled)
  }

  /// Calls `intent` on `model` (found by its id) over the socket.
  @discardableResult
  public func call<Target: Model>(_ model: Target, _ intent: String, _ params: JSONValue = [:], settled: Bool = false) async throws -> JSONValue {
    try await call(target: .id(model._$modelContext.id.description), intent, params, settled: settled)
  }

  private func call(target: IntentCall.Target, _ intent: String, _ params: JSONValue, settled: Bool) async throws -> JSONValue {
    let request = IntentCall.Params(target: target, intent: intent, params: params.objectValue, wait: settled ? .settled : nil)
    // The reply as JSON: testers read `result` as the intent's own type.
    return try await client.call(.intentCall, JSONValueEncoder().encode(request))
  }

  /// Waits until every predicate holds, then consumes what they read and matched; see
  /// ``ModelTester/assert(timeout:fileID:filePath:line:column:_:)``.
  nonisolated(nonsending) public func assert(
    timeout: Duration = ModelTesterDefaults.timeout,
    fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column,
    @AssertionBuilder _ predicates: () -> [AssertionPredicate]
  ) async {
    let location = TesterLocation(fileID: fileID, filePath: filePath, line: line, column: column)
    await AssertionLoop.assert(self, timeout: timeout, location: location) {
      let results = predicates()
      // Patches trail the live tree: consume only once the watch has what the model shows.
      return results + [AssertionPredicate(passed: caughtUp, failure: "the watch has not caught up with the tree yet")]
    }
  }

  /// Waits until `value` is not nil and returns it; see ``ModelTester/unwrap(_:timeout:fileID:filePath:line:column:)``.
  nonisolated(nonsending) public func unwrap<Value>(
    _ value: @autoclosure () -> Value?, timeout: Duration = ModelTesterDefaults.timeout,
    fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
  ) async throws -> Value {
    let location = TesterLocation(fileID: fileID, filePath: filePath, line: line, column: column)
    let found = try await AssertionLoop.unwrap(self, timeout: timeout, location: location) { caughtUp ? value() : nil }
    return found
  }

  /// Whether the watch has applied every revision the tree has committed.
  private var caughtUp: Bool {
    let revision = anchor.revision
    return state.withLock { $0.mirrorRevision >= revision }
  }

  // MARK: Following the socket

  fileprivate func follow(_ update: StateUpdate) {
    state.withLock { state in
      state.mirror = update.value ?? .null
      state.mirrorRevision = update.revision
      switch update.kind {
      case .initial: break
      case .resync:
        state.operations.append(PendingOperation(path: "", text: "resync: the whole state replaced", revision: update.revision))
      case .patch(let patch):
        for operation in patch.operations {
          let json = (try? JSONValueEncoder().encode(operation)) ?? .null
          let path = json["path"]?.stringValue ?? ""
          let value = json["value"].map { " = \($0.jsonString)" } ?? ""
          state.operations.append(PendingOperation(path: path, text: "\(operation.op) \(path.isEmpty ? "/" : path)\(value)", revision: update.revision))
        }
      }
    }
  }

  fileprivate func received(type: String, event: JSONValue, sourceID: String, sourceType: String, sourcePath: String) {
    state.withLock { $0.eventsReceived += 1 }
    guard let source = ModelID(sourceID) else { return }
    let text = "\(type) \(event.jsonString) from \(sourceType) at \(sourcePath.isEmpty ? "/" : sourcePath)"
    state.withLock { state in
      state.events.append(PendingEvent(id: state.nextEventID, text: text, tested: TestedEvent(sourceID: source, value: nil, json: event)))
      state.nextEventID += 1
    }
  }

  /// Counts the events the tree sends from now on (see ``State/eventsSent``).
  fileprivate func countSentEvents() -> EventTap {
    anchor.tapEvents { [state] _ in state.withLock { $0.eventsSent += 1 } }
  }

  /// Whether both watches have delivered what the tree has done: the state watch every
  /// committed revision, the event watch every event sent (or a watch has failed, which
  /// the report says).
  fileprivate var watchesCaughtUp: Bool {
    let revision = anchor.revision
    return state.withLock {
      $0.watchError != nil || ($0.mirrorRevision >= revision && $0.eventsReceived >= $0.eventsSent)
    }
  }

  /// What the watches still miss, for a deadline's message.
  fileprivate var watchLag: String {
    let revision = anchor.revision
    return state.withLock {
      "the daemon's watches to deliver revision \(revision) (at \($0.mirrorRevision)) and \($0.eventsSent) events (\($0.eventsReceived) received)"
    }
  }

  fileprivate func watchFailed(_ error: any Error) {
    state.withLock { $0.watchError = "\(error)" }
  }

  // MARK: The end of the test

  /// What was left unasserted, as the report's sections.
  fileprivate func leftovers() -> [String] {
    let state = self.state.withLock { $0 }
    let required = state.exhaustivity
    var sections: [String] = []
    if let error = state.watchError { sections.append("The watches of the daemon failed: \(error)") }
    if required.contains(.state), !state.operations.isEmpty {
      sections.append(
        "Patch operations not asserted:\n" + state.operations.map { "  \($0.text) (revision \($0.revision))" }.joined(separator: "\n"))
    }
    if required.contains(.events), !state.events.isEmpty {
      sections.append("Events not asserted (didSend):\n" + state.events.map { "  " + $0.text }.joined(separator: "\n"))
    }
    if required.contains(.tasks), let running = TesterReport.runningTasks(of: anchor) { sections.append(running) }
    if required.contains(.probes), let calls = TesterReport.unassertedCalls(of: state.probes) { sections.append(calls) }
    return sections
  }

  fileprivate static func make(socket: String, anchor: ModelAnchor<Root>, exhaustivity: Exhaustivity) -> DaemonTester {
    DaemonTester(socket: socket, anchor: anchor, exhaustivity: exhaustivity)
  }
}

extension DaemonTester: AssertionLedger {
  package func firstPendingEvent(excluding excluded: Set<Int>, where matches: (TestedEvent) -> Bool) -> Int? {
    let events = state.withLock { $0.events }
    return events.first { !excluded.contains($0.id) && matches($0.tested) }?.id
  }

  /// Consumes the patch operations at, under or above the paths of what was read: a read
  /// of `/counters` consumes `add /counters/1`; a read of `/counters/1/counter/count`
  /// consumes `add /counters/1` too (it looked into what was added).
  package func consume(reads: Set<RecordedRead>, events: Set<Int>) {
    state.withLock { state in
      let paths = reads.compactMap { read in
        state.mirror.pointer(toObjectWithID: read.modelID.description)?.appending(read.property).description
      }
      state.operations.removeAll { operation in
        paths.contains { path in
          operation.path == path || operation.path.hasPrefix(path + "/") || path.hasPrefix(operation.path + "/") || operation.path.isEmpty
        }
      }
      state.events.removeAll { events.contains($0.id) }
    }
  }

  package func describe(_ reads: Set<RecordedRead>) -> [String] {
    TesterReport.describe(reads, in: state.withLock { $0.mirror }, missing: "(not in the watched state)")
  }
}

/// Hosts `root` in a daemon in this process, runs `body` with the live root and a
/// ``DaemonTester``, reports what was left unasserted at this line, and stops the daemon.
///
/// ```swift
/// try await withDaemonTester(AppModel(), dependencies: { $0.factClient.fetch = { "\($0) is a good number." } }) { model, tester in
///   try await tester.call("/", "addButtonTapped")
///   await tester.assert { model.counters.count == 1 }
/// }
/// ```
nonisolated(nonsending) public func withDaemonTester<Root: Model>(
  _ root: @escaping @autoclosure @Sendable () -> Root,
  name: String = "arbor-tester",
  exhaustivity: Exhaustivity = .full,
  dependencies: @escaping @Sendable (inout DependencyValues) -> Void = { _ in },
  fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column,
  _ body: (Root, DaemonTester<Root>) async throws -> Void
) async throws {
  let location = TesterLocation(fileID: fileID, filePath: filePath, line: line, column: column)
  var template = Array("/tmp/arbor-tester-XXXXXX".utf8CString)
  guard let made = mkdtemp(&template) else { throw DaemonTesterError("cannot make a temporary directory (errno \(errno))") }
  let directory = String(cString: made)
  defer { try? FileManager.default.removeItem(atPath: directory) }
  let socket = directory + "/d.sock"
  let options = try DaemonOptions.parse(["--socket", socket, "--state-dir", directory + "/state", "--log-level", "warning"])
  let daemon = ArborDaemon(name: name, options: options, environment: [:], dependencies: dependencies, makeRoot: root)
  let stop = DaemonStop()
  let (started, startedContinuation) = AsyncStream.makeStream(of: ModelAnchor<Root>.self)
  let running = Task {
    defer { startedContinuation.finish() }
    try await daemon.run(until: stop, handlingSignals: false) { anchor in startedContinuation.yield(anchor) }
  }
  var anchors = started.makeAsyncIterator()
  guard let anchor = await anchors.next() else {
    try await running.value
    throw DaemonTesterError("the daemon stopped before it listened")
  }
  let tester = DaemonTester<Root>.make(socket: socket, anchor: anchor, exhaustivity: exhaustivity)
  // The watches start before the body, so that they see everything it does.
  let (subscribed, subscribedContinuation) = AsyncStream.makeStream(of: Void.self)
  let stateWatch = Task {
    do {
      for try await update in tester.client.watch() {
        tester.follow(update)
        if update.kind == .initial { subscribedContinuation.yield() }
      }
    } catch is CancellationError {
    } catch {
      tester.watchFailed(error)
    }
  }
  let eventWatch = Task {
    do {
      for try await event in tester.client.events(onConnection: { event in
        if case .subscribed = event { subscribedContinuation.yield() }
      }) {
        tester.received(type: event.type, event: event.event, sourceID: event.sourceID, sourceType: event.sourceType, sourcePath: event.sourcePath)
      }
    } catch is CancellationError {
    } catch {
      tester.watchFailed(error)
    }
  }
  var ready = subscribed.makeAsyncIterator()
  _ = await ready.next()
  _ = await ready.next()
  // Counted only from here, when the event watch is subscribed: every event counted is
  // one it delivers.
  let sentEvents = tester.countSentEvents()
  defer { withExtendedLifetime(sentEvents) {} }
  do {
    try await body(anchor.model, tester)
    // What is left is read once the watches have delivered what the body did: on a loaded
    // machine their last patches and events can trail the body's end.
    if !tester.watchesCaughtUp {
      await expectEventually(tester.watchLag, fileID: fileID, filePath: filePath, line: line, column: column) {
        tester.watchesCaughtUp
      }
    }
  } catch {
    stateWatch.cancel()
    eventWatch.cancel()
    await stop.trigger()
    _ = try? await running.value
    throw error
  }
  let leftovers = tester.leftovers()
  stateWatch.cancel()
  eventWatch.cancel()
  await stop.trigger()
  try await running.value
  if !leftovers.isEmpty {
    location.report("Exhaustive test of \(Root.self) through the daemon's socket left these unasserted:\n\n" + leftovers.joined(separator: "\n\n"))
  }
}

/// Why the daemon tester could not run.
public struct DaemonTesterError: Error, CustomStringConvertible {
  public let description: String
  init(_ description: String) { self.description = description }
}
