import Arbor
import ArborJSON
import ArborRPC
import Foundation
import FuzzCheck
import IssueReporting
import Logging
import NIOCore

// A real model tree changed by a fuzzed program, and the copies that follow it by its
// patches: the watch hub's (`WatchHub`, the daemon's own file, as `ChangePump` feeds it),
// path watchers of the hub (`ScopedPatch`, their notification lines read back and applied)
// and a standby's (`ReplicaHost`'s way: the patch's JSON text, as the journal keeps it,
// parsed and applied). Models of every shape (Models.swift): an array of models reconciled
// by identity, a dictionary, an optional, an enum and a generic struct holding models,
// an IdentifiedArray, nested arrays, models shared between places, plain values.
//
// The input: optionally a JSON Patch on the first line (starting with `[`), applied to the
// initial state, from which the tree is then restored (`andAnchor(restoring:)`, as
// `state.restore` does); then the program, a byte per step and its operands
// (`Program.step`): writes to every property, moves, shares, removals, transactions
// holding several steps, doubles from raw bits (NaN and infinities included), keys and
// tags with `/`, `~`, escapes and the runtime's own marker key.
//
// Properties, after every step:
// - the tree's every exact change set applies to the hub's copy (`WatchHub.apply` never
//   refuses one), and the copy is then the tree's state (and at the end the same JSON
//   text);
// - the change set's JSON text (`patchJSON`, what the journal stores and a standby
//   applies) is its patch, and applied to the standby's copy gives the tree's state;
// - a change set that is not exact (a value that cannot be encoded) is marked so, and a
//   reset from the tree's state (when it encodes) brings the copies back;
// - every path watcher, applying the notifications it is sent (patches relative to its
//   path, whole values, `exists: false`, resyncs), holds the tree's value at its path;
// - at the end, a watch from an earlier revision still in the hub's history (root and
//   paths) replays to the tree's state.

private let logger = Logger(label: "fuzz", factory: { _ in SwiftLogNoOpLogHandler() })

/// Issues the runtime reports, kept to be checked (only a value that cannot be encoded may
/// be reported: nothing the program does misuses the runtime), not printed.
private final class KeptIssues: IssueReporter, @unchecked Sendable {
  private let lock = NSLock()
  private var messages: [String] = []

  func reportIssue(
    _ message: @autoclosure () -> String?, severity: IssueSeverity, fileID: StaticString, filePath: StaticString, line: UInt, column: UInt
  ) {
    let text = message() ?? ""
    lock.withLock { messages.append(text) }
  }

  func take() -> [String] {
    lock.withLock {
      defer { messages = [] }
      return messages
    }
  }
}

private let issues = KeptIssues()
private let setUp: Void = { IssueReporters.current = [issues] }()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTree(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  _ = setUp
  var bytes = inputBytes(data, size)[...]
  var patch: JSONPatch? = nil
  if bytes.first == UInt8(ascii: "[") {
    let newline = bytes.firstIndex(of: 0x0A) ?? bytes.endIndex
    guard let value = try? JSONValue(parsing: bytes[..<newline]), let read = try? JSONPatch(json: value) else { return 0 }
    patch = read
    bytes = newline < bytes.endIndex ? bytes[(newline + 1)...] : []
  }
  let tree: (Warehouse, ModelAnchor<Warehouse>)
  if let patch {
    // The initial state, patched, restored as a tree: a state of any shape the models take.
    let (_, initial) = Warehouse.initial().andAnchor()
    guard case let (revision, state)? = try? initial.state(), let patched = try? patch.apply(to: state) else { return 0 }
    let record = SnapshotRecord(root: Warehouse._$typeName, schema: Warehouse.schemaHash, revision: revision, createdAt: Date(timeIntervalSince1970: 0), state: patched)
    do {
      tree = try Warehouse.andAnchor(restoring: record, revision: revision + 1)
    } catch is SnapshotError {
      return 0
    } catch {
      fatalError("a patched state was refused with \(type(of: error)), not a SnapshotError: \(error)")
    }
  } else {
    tree = Warehouse.initial().andAnchor()
  }
  let (house, anchor) = tree
  var followers = Followers(anchor: anchor)
  var program = Program(bytes: bytes, house: house)
  followers.follow(after: "the start")
  var steps = 0
  while steps < 48, let description = program.step() {
    steps += 1
    followers.follow(after: "step \(steps) (\(description))")
  }
  followers.checkText()
  followers.checkReplays()
  followers.stop()
  return 0
}

// MARK: - The copies that follow the tree

private struct Followers {
  let anchor: ModelAnchor<Warehouse>
  let hub = WatchHub(historyLimit: 64, logger: logger)
  let deliveries = Deliveries()
  var listener: ChangeSetListener?
  /// A standby's copy: the patches' JSON text parsed and applied.
  var replica: JSONValue?
  var watchers: [Watcher] = []
  let outbox = Outbox(watchLimit: 1 << 20, byteLimit: 1 << 40, wake: {})
  /// The tree's state at each revision the hub's history holds, for the replays.
  var states: [UInt64: JSONValue] = [:]
  /// The hub must start over from the tree (an inexact change set): nothing is compared
  /// until the tree's state encodes again.
  var needsReset = false

  /// Paths watched from the start (those that exist in the state then).
  static let scopes = [
    "/long/0", "/long/1/value", "/long", "/byKey/k", "/byKey", "/shelves/0", "/shelves/0/cells/0/tag", "/holder",
    "/page/items", "/spare", "/identified/0", "/note", "/grid/0/0",
  ]

  init(anchor: ModelAnchor<Warehouse>) {
    self.anchor = anchor
    let deliveries = self.deliveries
    listener = anchor.listen { deliveries.append($0) }
    guard case let (revision, state)? = try? anchor.state() else {
      needsReset = true
      return
    }
    hub.reset(document: state, revision: revision)
    replica = state
    states[revision] = state
    for scope in Self.scopes {
      let pointer = try! JSONPointer(scope)
      guard (try? pointer.resolve(in: state)) != nil else { continue }
      var watcher = Watcher(scope: pointer, since: nil)
      Self.watch(&watcher, hub: hub, outbox: outbox, treeRevision: revision)
      watchers.append(watcher)
    }
  }

  func stop() {
    listener?.cancel()
  }

  /// Starts a watch on the hub; its reply comes through the outbox.
  static func watch(_ watcher: inout Watcher, hub: WatchHub, outbox: Outbox, treeRevision: UInt64) {
    do {
      try hub.watchState(outbox: outbox, scope: watcher.scope, since: watcher.since, treeRevision: treeRevision) { result in
        var line: [UInt8] = []
        JSONValue.object(["jsonrpc": "2.0", "id": 1, "result": result]).writeJSON(to: &line)
        return line
      }
      watcher.started = true
    } catch {
      check(watcher.since != nil, "a watch of \(watcher.scope), which exists in the hub's copy, was refused: \(error)")
    }
  }

  /// Applies what the tree delivered since the last check, as `ChangePump` does, then
  /// compares every copy with the tree.
  mutating func follow(after step: String) {
    for issue in issues.take() {
      check(issue.contains("cannot be encoded as JSON"), "the runtime reported an issue after \(step): \(issue)")
    }
    for delivery in deliveries.take() {
      guard case .committed(let changeSet) = delivery else {
        fatalError("the listener overflowed after \(step)")
      }
      guard changeSet.isExact else {
        needsReset = true
        continue
      }
      if needsReset { continue }
      let operations = changeSet.patch.operations
      // The journal's text of the patch is the patch.
      let text = changeSet.patchJSON
      guard let parsed = try? JSONValue(parsing: text), let reread = try? JSONPatch(json: parsed) else {
        fatalError("revision \(changeSet.revision)'s patch JSON does not read back, after \(step): \(show(text))")
      }
      check(
        reread.operations.count == operations.count,
        "revision \(changeSet.revision)'s patch JSON has \(reread.operations.count) operations, the patch \(operations.count), after \(step)")
      let applied = hub.apply(revision: changeSet.revision, operations: operations, patchJSON: text)
      check(applied, "revision \(changeSet.revision)'s patch does not apply to the hub's copy, after \(step): \(show(text))")
      if var replica {
        do {
          try reread.apply(to: &replica)
        } catch {
          fatalError("revision \(changeSet.revision)'s patch JSON does not apply to the standby's copy (\(error)), after \(step): \(show(text))")
        }
        self.replica = replica
      }
    }
    let treeState: (revision: UInt64, value: JSONValue)
    do {
      treeState = try anchor.state()
    } catch {
      // A value that cannot be encoded (a NaN): the daemon waits until it can.
      check(needsReset, "the tree's state does not encode (\(error)), yet every change set was exact, after \(step)")
      return
    }
    if needsReset {
      hub.reset(document: treeState.value, revision: treeState.revision)
      replica = treeState.value
      states = [:]
      needsReset = false
    }
    states[treeState.revision] = treeState.value
    // Compared as values (numbers by value) at each step; as JSON text, exactly, at the end.
    let (hubRevision, hubState) = hub.current
    check(hubRevision == treeState.revision, "the hub is at revision \(hubRevision), the tree at \(treeState.revision), after \(step)")
    check(
      hubState == treeState.value,
      "the hub's copy is not the tree's state after \(step):\n  hub:  \(show(canonical(hubState)))\n  tree: \(show(canonical(treeState.value)))")
    if let replica {
      check(
        replica == treeState.value,
        "the standby's copy is not the tree's state after \(step):\n  standby: \(show(canonical(replica)))\n  tree:    \(show(canonical(treeState.value)))")
    }
    readNotifications(after: step)
    for watcher in watchers where watcher.started {
      let value = try? watcher.scope.resolve(in: treeState.value)
      check(
        watcher.value == value,
        "the watcher of \(watcher.scope) holds \(watcher.value.map { show(canonical($0)) } ?? "nothing"), the tree \(value.map { show(canonical($0)) } ?? "nothing") there, after \(step)")
    }
  }

  /// The hub's copy and the tree's state as JSON text: the same bytes (an integer stays an
  /// integer, a key keeps its spelling).
  func checkText() {
    guard !needsReset, case let (revision, state)? = try? anchor.state(), hub.current.revision == revision else { return }
    let expected = canonical(state)
    let copy = canonical(hub.current.document)
    check(copy == expected, "the hub's copy is not the tree's state as text:\n  hub:  \(show(copy))\n  tree: \(show(expected))")
  }

  /// Reads the lines the hub queued for the watchers and applies each to its watcher.
  mutating func readNotifications(after step: String) {
    guard case .items(let items) = outbox.take() else { return }
    for item in items {
      let line: [UInt8]
      switch item {
      case .bytes(let bytes, _): line = bytes
      case .buffer(let buffer): line = Array(buffer.readableBytesView)
      case .resync(let subscription):
        guard let resync = hub.resyncLine(subscription: subscription) else { continue }
        line = resync
      }
      guard case .object(let message)? = try? JSONValue(parsing: line) else {
        fatalError("a watcher's line is not a JSON object, after \(step): \(show(line))")
      }
      if case .object(let result)? = message["result"] {
        // A watch's reply: its subscription, and its value unless it starts from `since`.
        guard case .int(let subscription)? = result["subscription"],
          let index = watchers.firstIndex(where: { $0.started && $0.subscription == nil })
        else { fatalError("a watch's reply without its watcher: \(show(line))") }
        watchers[index].subscription = Int(subscription)
        if watchers[index].since == nil {
          watchers[index].value = result["value"]
        } else {
          watchers[index].value = watchers[index].base
        }
        continue
      }
      guard case .string("state.changed")? = message["method"], case .object(let params)? = message["params"],
        case .int(let subscription)? = params["subscription"],
        let index = watchers.firstIndex(where: { $0.subscription == Int(subscription) })
      else { fatalError("a line the watchers cannot read, after \(step): \(show(line))") }
      if params["resync"] == .bool(true) {
        watchers[index].value = params["exists"] == .bool(false) ? nil : params["value"]
        continue
      }
      guard let patchValue = params["patch"], let patch = try? JSONPatch(json: patchValue) else {
        fatalError("a state.changed without a patch, after \(step): \(show(line))")
      }
      if params["exists"] == .bool(false) {
        watchers[index].value = nil
        continue
      }
      guard var value = watchers[index].value ?? Self.wholeValue(patch) else {
        fatalError("the watcher of \(watchers[index].scope) holds nothing and is sent a patch that needs a value, after \(step): \(show(line))")
      }
      do {
        try patch.apply(to: &value)
      } catch {
        fatalError(
          "the watcher of \(watchers[index].scope) cannot apply its patch (\(error)) to \(watchers[index].value.map { show(canonical($0)) } ?? "nothing"), after \(step): \(show(line))"
        )
      }
      watchers[index].value = value
    }
  }

  /// A patch that replaces the whole value (what a watcher whose path came back is sent).
  static func wholeValue(_ patch: JSONPatch) -> JSONValue? {
    guard patch.operations.count == 1, case .replace(let path, let value) = patch.operations[0], path.tokens.isEmpty else { return nil }
    return value
  }

  /// Watches that start from an earlier revision of the hub's history: the root's and each
  /// scope's replay ends at the tree's state.
  mutating func checkReplays() {
    guard !needsReset, case let (revision, state)? = try? anchor.state() else { return }
    let oldest = hub.oldestReplayable
    // The oldest revision the history holds, one in the middle and the one before the last.
    let candidates = states.keys.sorted().filter { $0 >= oldest && $0 < revision }
    let chosen = Set([candidates.first, candidates.isEmpty ? nil : candidates[candidates.count / 2], candidates.last].compactMap { $0 })
    for since in chosen.sorted() {
      guard let base = states[since] else { continue }
      for scope in ["", "/long", "/byKey/k", "/shelves/0/cells", "/holder"] {
        let pointer = try! JSONPointer(scope)
        var watcher = Watcher(scope: pointer, since: since)
        // A path watch from `since` starts from its value then (nil: not there).
        watcher.base = try? pointer.resolve(in: base)
        guard (try? pointer.resolve(in: state)) != nil else { continue }
        Self.watch(&watcher, hub: hub, outbox: outbox, treeRevision: revision)
        watchers.append(watcher)
      }
      readNotifications(after: "the watches from revision \(since)")
      for watcher in watchers where watcher.since == since && watcher.started {
        let value = try? watcher.scope.resolve(in: state)
        check(
          watcher.value == value,
          "a watch of \(watcher.scope.description.debugDescription) from revision \(since) replays to \(watcher.value.map { show(canonical($0)) } ?? "nothing"), the tree holds \(value.map { show(canonical($0)) } ?? "nothing")"
        )
      }
    }
  }
}

private struct Watcher {
  let scope: JSONPointer
  let since: UInt64?
  var base: JSONValue? = nil
  var started = false
  var subscription: Int? = nil
  var value: JSONValue? = nil
}

/// What the tree's listener delivered, taken at each check.
private final class Deliveries: @unchecked Sendable {
  private var items: [ChangeSetDelivery] = []
  private let lock = NSLock()

  func append(_ delivery: ChangeSetDelivery) { lock.withLock { items.append(delivery) } }
  func take() -> [ChangeSetDelivery] {
    lock.withLock {
      defer { items = [] }
      return items
    }
  }
}

/// The canonical text of a value (compact, keys sorted).
private func canonical(_ value: JSONValue) -> [UInt8] {
  var bytes: [UInt8] = []
  value.writeJSON(to: &bytes)
  return bytes
}

/// What the watch hub needs of the daemon's errors (ArborErrors.swift brings the store).
enum ArborErrors {
  static func pathNotFound(_ path: String) -> RPCError { .pathNotFound(path) }
}
