import ArborClient
import ArborJSON
import ArborTesting
import Foundation
import ProcessSlots
import Subprocess
import Testing

/// Random edits, undos and redos against the real `todosd` under `--fsync always`, killed
/// with SIGKILL at the end of every cycle and started again on the same state directory;
/// after every step the items must be those of a plain list with its own undo stack, which
/// never restarts (under `--fsync batch`: as of the revision the daemon restored).
/// `ARBOR_UNDO_KILL_CYCLES` sets the number of cycles (default 4).
@Suite(.startsProcesses) struct UndoKillCycleTests {
  /// The list as plain values: items, and the stacks of whole item lists an undo or a redo
  /// goes back to.
  struct PlainList {
    struct Item: Equatable, CustomStringConvertible {
      var id: String
      var title: String
      var isDone = false
      var description: String { "\(title)\(isDone ? "✓" : "")" }
    }
    var items: [Item] = []
    var undo: [[Item]] = []
    var redo: [[Item]] = []

    mutating func edit(_ change: (inout [Item]) -> Void) {
      var next = items
      change(&next)
      guard next != items else { return }
      undo.append(items)
      redo = []
      items = next
    }
  }

  static let titles = ["Milk", "Eggs", "Bread", "Tea"]

  static func items(_ client: ArborConnection) async throws -> [PlainList.Item] {
    try await TodosCalls.items(client).arrayValue?.map {
      PlainList.Item(id: $0["id"]?.stringValue ?? "?", title: $0["title"]?.stringValue ?? "?", isDone: $0["isDone"] == true)
    } ?? []
  }

  /// Under `--fsync always` every acknowledged step survives the kill. Under `batch` the
  /// last ones may not: the restarted list must then be the plain list as of the revision
  /// the daemon restored, with the undo history of that moment, and the steps go on from there.
  @Test(arguments: ["always", "batch"])
  func randomStepsAcrossKillsMatchAPlainList(fsync: String) async throws {
    let cycles = ProcessInfo.processInfo.environment["ARBOR_UNDO_KILL_CYCLES"].flatMap(Int.init) ?? 4
    let directory = try DaemonHarness.temporaryDirectory()
    var random = SeededRandomNumberGenerator(seed: fsync == "always" ? 31 : 32)
    var plain = PlainList()
    // The plain list as of each revision a reply named.
    var byRevision: [Int64: PlainList] = [0: plain]
    var log: [String] = []
    var lostSteps = 0
    for cycle in 1...cycles {
      let (_, status) = try await withDaemon(binary: TodosCalls.todosd(), arguments: ["--fsync", fsync], directory: directory) {
        daemon, execution in
        let client = try await daemon.connect()
        let restored = try #require(try await client.call("state.get")["revision"]?.intValue)
        let acknowledged = byRevision.keys.max() ?? 0
        if fsync == "always" {
          #expect(restored >= acknowledged, "cycle \(cycle): revision \(restored) restored, \(acknowledged) acknowledged")
        }
        // The newest revision a reply named that the daemon kept (todosd's dirty flag
        // commits revisions no reply names, after a pause of a second).
        let kept = try #require(byRevision.keys.filter { $0 <= restored }.max())
        lostSteps += byRevision.keys.filter { $0 > restored }.count
        byRevision = byRevision.filter { $0.key <= kept }
        plain = byRevision[kept]!
        #expect(try await Self.items(client) == plain.items, "cycle \(cycle): the list after the restart at revision \(restored)")
        for step in 1...25 {
          let (action, revision) = try await Self.randomStep(client, &plain, &random)
          log.append(action)
          if let revision { byRevision[revision] = plain }
          let live = try await Self.items(client)
          #expect(live == plain.items, "cycle \(cycle), step \(step) (\(action)): \(live) instead of \(plain.items)\nlast steps: \(log.suffix(6))")
          if live != plain.items { break }
        }
        try execution.send(signal: .kill)
      }
      #expect(status == .signaled(9))
    }
    if fsync == "always" { #expect(lostSteps == 0) }
    print("--fsync \(fsync): \(cycles) kills, \(log.count) steps, \(lostSteps) acknowledged revisions lost with the kills")
  }

  /// One random step on both lists: what it was, and the revision its reply named.
  static func randomStep(
    _ client: ArborConnection, _ plain: inout PlainList, _ random: inout SeededRandomNumberGenerator
  ) async throws -> (String, Int64?) {
    let index = plain.items.isEmpty ? nil : Int.random(in: 0..<plain.items.count, using: &random)
    let title = titles.randomElement(using: &random)!
    switch Int.random(in: 0..<100, using: &random) {
    case 0..<22:
      let reply = try await TodosCalls.intent(client, "addItem", ["title": .string(title)])
      plain.edit { $0.append(.init(id: reply["result"]?.stringValue ?? "?", title: title)) }
      return ("add \(title)", reply["revision"]?.intValue)
    case 22..<34:
      guard let index else { return ("rename: no item", nil) }
      let reply = try await TodosCalls.intent(client, "rename", target: ["id": .string(plain.items[index].id)], ["to": .string(title)])
      plain.edit { $0[index].title = title }
      return ("rename #\(index) to \(title)", reply["revision"]?.intValue)
    case 34..<48:
      guard let index else { return ("toggle: no item", nil) }
      let reply = try await TodosCalls.intent(client, "toggle", target: ["id": .string(plain.items[index].id)])
      plain.edit { $0[index].isDone.toggle() }
      return ("toggle #\(index)", reply["revision"]?.intValue)
    case 48..<56:
      guard let index else { return ("remove: no item", nil) }
      let reply = try await TodosCalls.intent(client, "remove", ["id": .string(plain.items[index].id)])
      plain.edit { $0.remove(at: index) }
      return ("remove #\(index)", reply["revision"]?.intValue)
    case 56..<60:
      let reply = try await TodosCalls.intent(client, "clearCompleted")
      plain.edit { $0.removeAll(where: \.isDone) }
      return ("clear completed", reply["revision"]?.intValue)
    case 60..<82:
      guard let previous = plain.undo.popLast() else {
        #expect(await TodosCalls.nothingLeft(client, "history.undo") == "org.arbor.NothingToUndo")
        return ("undo: nothing", nil)
      }
      let reply = try await client.call("history.undo")
      plain.redo.append(plain.items)
      plain.items = previous
      return ("undo", reply["revision"]?.intValue)
    default:
      guard let next = plain.redo.popLast() else {
        #expect(await TodosCalls.nothingLeft(client, "history.redo") == "org.arbor.NothingToRedo")
        return ("redo: nothing", nil)
      }
      let reply = try await client.call("history.redo")
      plain.undo.append(plain.items)
      plain.items = next
      return ("redo", reply["revision"]?.intValue)
    }
  }
}
