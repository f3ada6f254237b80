import Arbor
import ArborJSON
import ArborTesting
import Foundation
import Synchronization
import Testing

/// Replaying another tree's journalled patches into a tree restored from its snapshot
/// gives the same state, model ids included, at the same revisions.
@Suite struct JournalReplayTests {
  static var runs: Int { Int(ProcessInfo.processInfo.environment["ARBOR_ROUNDTRIP_RUNS"] ?? "") ?? 60 }

  /// Random operations of every kind (appends, inserts and removals at any index, deep
  /// writes, optional and dictionary models, identified arrays, swaps, transactions that
  /// insert and then change a model) on a live tree; a restored tree replays its patches.
  @Test func aRestoredTreeReplaysEveryRevisionToTheSameState() async throws {
    try await onOwnThread("JournalReplayTests runs") {
      var replayedRevisions = 0
      for seed in 1...UInt64(Self.runs) {
        var random = SeededRandomNumberGenerator(seed: seed)
        let (live, liveAnchor) = Forest().andAnchor()
        let snapshotStep = Int.random(in: 0...60, using: &random)
        for _ in 0..<snapshotStep { randomForestStep(live, using: &random) }
        let record = try liveAnchor.snapshotRecord()
        let journal = Mutex<[(revision: UInt64, patch: JSONPatch)]>([])
        let listener = liveAnchor.listen { delivery in
          if case .committed(let changeSet) = delivery { journal.withLock { $0.append((changeSet.revision, changeSet.patch)) } }
        }
        for _ in 0..<120 { randomForestStep(live, using: &random) }
        listener.cancel()

        let (_, replica) = try Forest.andAnchorInactive(restoring: record)
        for entry in journal.withLock({ $0 }) {
          try replica.replay(entry.patch, at: entry.revision)
          #expect(replica.revision == entry.revision)
        }
        replayedRevisions += journal.withLock { $0.count }
        let expected = try liveAnchor.state().value
        let replayed = try replica.state().value
        #expect(replica.revision == liveAnchor.revision, "seed \(seed)")
        #expect(JSONValue.difference(expected, replayed) == nil, "seed \(seed): \(JSONValue.difference(expected, replayed) ?? "")")
      }
      #expect(replayedRevisions > Self.runs * 60, "most steps were revisions")
    }
  }

  /// Models inside containers that are not arrays of models (an enum with associated
  /// models, a struct holding an array of models): each write replays to the same state.
  @Test func modelsInsideContainersReplayToTheSameState() throws {
    let (navigator, anchor) = Navigator().andAnchor()
    let record = try anchor.snapshotRecord()
    let journal = Mutex<[(revision: UInt64, patch: JSONPatch)]>([])
    let listener = anchor.listen { delivery in
      if case .committed(let changeSet) = delivery { journal.withLock { $0.append((changeSet.revision, changeSet.patch)) } }
    }
    let first = Leaf(value: 1, label: "first")
    navigator.destination = .detail(first)
    first.value = 2
    navigator.destination = .pair(Leaf(value: 3), second: first)
    first.label = "moved"
    navigator.page.items.append(Leaf(value: 4))
    navigator.page.items.append(first)
    navigator.page.items[0].value = 5
    navigator.page.currentPage = 2
    navigator.page.items.remove(at: 0)
    navigator.destination = .none
    listener.cancel()

    let (_, replica) = try Navigator.andAnchorInactive(restoring: record)
    for entry in journal.withLock({ $0 }) {
      try replica.replay(entry.patch, at: entry.revision)
      #expect(replica.revision == entry.revision)
    }
    let expected = try anchor.state().value
    let replayed = try replica.state().value
    #expect(JSONValue.difference(expected, replayed) == nil, "\(JSONValue.difference(expected, replayed) ?? "")")
    #expect(journal.withLock { $0.count } >= 9)
  }

  /// A model that stands at two places has each of its changes twice in a patch, once per
  /// place: the replay makes it once.
  @Test func aModelAtTwoPlacesIsChangedOnce() throws {
    let (grove, anchor) = Grove().andAnchor()
    let shared = Branch(name: "shared")
    grove.node.transaction {
      grove.first = shared
      grove.second = shared
    }
    let record = try anchor.snapshotRecord()
    let journal = Mutex<[(revision: UInt64, patch: JSONPatch)]>([])
    let listener = anchor.listen { delivery in
      if case .committed(let changeSet) = delivery { journal.withLock { $0.append((changeSet.revision, changeSet.patch)) } }
    }
    shared.leaves.append(Leaf(value: 1))
    shared.leaves.append(Leaf(value: 2))
    listener.cancel()
    let entries = journal.withLock { $0 }
    #expect(entries.first?.patch.operations.count == 2, "one operation per place: \(entries.first?.patch.operations ?? [])")

    let (replayedGrove, replica) = try Grove.andAnchorInactive(restoring: record)
    for entry in entries { try replica.replay(entry.patch, at: entry.revision) }
    #expect(replayedGrove.first?.leaves.map(\.value) == [1, 2])
    #expect(try replica.state().value == anchor.state().value)
  }

  /// A restored tree runs none of its models until it is activated, nor the models a
  /// replay adds (an activation that wrote would commit a revision of its own, and the next
  /// replay would not follow); then each of them once.
  @Test func modelsRunOnlyOnceTheTreeIsActivated() throws {
    let (live, liveAnchor) = Starter(name: "root", children: [Starter(name: "a")]).andAnchor()
    let record = try liveAnchor.snapshotRecord()
    let journal = Mutex<[(revision: UInt64, patch: JSONPatch)]>([])
    let listener = liveAnchor.listen { delivery in
      if case .committed(let changeSet) = delivery { journal.withLock { $0.append((changeSet.revision, changeSet.patch)) } }
    }
    live.children.append(Starter(name: "b"))
    live.children[0].name = "a2"
    listener.cancel()
    #expect(live.children.map(\.activations) == [1, 1], "the live tree ran each model once")

    let (replayed, replica) = try Starter.andAnchorInactive(restoring: record)
    for entry in journal.withLock({ $0 }) { try replica.replay(entry.patch, at: entry.revision) }
    #expect(try replica.state().value == liveAnchor.state().value)
    #expect(replayed.activations == 1 && replayed.children.map(\.activations) == [1, 1], "nothing ran before activation")
    replica.activate()
    #expect(replayed.activations == 2 && replayed.children.map(\.activations) == [2, 2], "each model ran once more")
    replica.activate()
    #expect(replayed.activations == 2, "a second activation runs nothing")
  }

  /// A revision that does not follow the tree's, or a patch that does not fit its models,
  /// is refused with what is wrong.
  @Test func aRevisionOutOfOrderOrAPatchOfAnotherShapeIsRefused() throws {
    let (_, anchor) = Branch(name: "b").andAnchor()
    let (_, replica) = try Branch.andAnchorInactive(restoring: anchor.snapshotRecord())
    let next = replica.revision + 1
    #expect(throws: JournalReplayError.self) { try replica.replay([.replace(JSONPointer(tokens: ["name"]), "c")], at: next + 1) }
    do {
      try replica.replay([.replace(JSONPointer(tokens: ["colour"]), "red")], at: next)
      Issue.record("a patch of a property the model does not have was replayed")
    } catch {
      #expect(error.description.contains("has no property 'colour'"), "\(error)")
    }
    let (_, fresh) = try Branch.andAnchorInactive(restoring: anchor.snapshotRecord())
    do {
      try fresh.replay([.replace(JSONPointer(tokens: ["name"]), 7)], at: fresh.revision + 1)
      Issue.record("a value of the wrong type was replayed")
    } catch {
      #expect(error.description.contains("Branch.name"), "\(error)")
    }
    try fresh.replay([.replace(JSONPointer(tokens: ["name"]), "c")], at: fresh.revision + 1)
    #expect(try fresh.state().value["name"] == "c")
  }
}

/// A model whose activation is seen in its state.
@Model struct Starter {
  var name = ""
  var activations = 0
  var children: [Starter] = []

  func onActivate() { activations += 1 }
}

@Model struct Grove {
  var first: Branch? = nil
  var second: Branch? = nil
}
