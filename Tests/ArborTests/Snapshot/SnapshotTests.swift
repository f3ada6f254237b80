import Arbor
import ArborJSON
import ArborTesting
import ConcurrencyExtras
import Foundation
import Testing

/// Records which models ran `onActivate`.
let activatedModels = LockIsolated<Set<ModelID>>([])

@Model struct Thermostat {
  var name = "hall"
  var target = 20.5
  var history: [Int] = []
  var schedule: [String: Int] = [:]

  func onActivate() { activatedModels.withValue { _ = $0.insert(id) } }
}

@Suite struct SnapshotTests {
  @Test func stateHoldsEveryPropertyByNameAndEveryModelsID() throws {
    let leaf = Leaf(value: 3, label: "a")
    let branch = Branch(name: "b", leaves: [leaf])
    let (forest, anchor) = Forest(branches: [branch], keyed: ["k": Leaf(value: 1)]).andAnchor()
    let keyedLeaf = try #require(forest.keyed["k"])
    let state = try anchor.state()
    #expect(state.revision == 0)
    let expected: JSONValue = [
      "id": .string(forest.id.description),
      "title": "forest",
      "branches": [
        [
          "id": .string(branch.id.description), "name": "b", "extra": nil,
          "leaves": [["id": .string(leaf.id.description), "value": 3, "label": "a"]],
        ]
      ],
      "keyed": ["k": ["id": .string(keyedLeaf.id.description), "value": 1, "label": ""]],
      "identified": [],
    ]
    #expect(state.value == expected)
  }

  @Test func containersLetsAndDeclaredIDsAreState() throws {
    let detail = Leaf(value: 7)
    let (navigator, anchor) = Navigator(destination: .detail(detail)).andAnchor()
    let state = try anchor.state().value
    #expect(
      state == [
        "id": .string(navigator.id.description),
        "destination": ["detail": ["_0": ["id": .string(detail.id.description), "value": 7, "label": ""]]],
        "page": ["items": [], "currentPage": 0],
      ])
    let (_, namedAnchor) = Named(id: "n-1", score: 2).andAnchor()
    #expect(try namedAnchor.state().value == ["id": "n-1", "score": 2])
    let (_, statelessAnchor) = Stateless(tag: "t").andAnchor()
    let stateless = try statelessAnchor.state().value
    #expect(stateless.objectValue?["tag"] == "t")
  }

  @Test func restoringGivesTheSameStateRevisionAndIDsAndActivatesTheTree() throws {
    let (model, anchor) = Thermostat().andAnchor()
    model.target = 21.25
    model.history.append(contentsOf: [1, 2, 3])
    model.schedule["07:00"] = 22
    let data = try anchor.snapshot()

    let (restored, restoredAnchor) = try Thermostat.andAnchor(restoring: data)
    #expect(restored.id == model.id)
    #expect(restoredAnchor.revision == anchor.revision)
    #expect(try restoredAnchor.state().value == anchor.state().value)
    #expect(activatedModels.value.contains(restored.id))
    restored.target = 19
    #expect(restoredAnchor.revision == anchor.revision + 1, "the restored tree goes on from the record's revision")
  }

  @Test func aRecordCarriesFormatRootSchemaRevisionAndTime() throws {
    let (model, anchor) = Thermostat().andAnchor()
    model.name = "attic"
    let date = Date(timeIntervalSince1970: 1_795_000_000)
    let record = try JSONDecoder().decode(SnapshotRecord.self, from: anchor.snapshot(createdAt: date))
    #expect(record.format == 1)
    #expect(record.root == "Thermostat")
    #expect(record.schema == Thermostat.schemaHash)
    #expect(record.schema.hasPrefix("sha256:") && record.schema.count == 7 + 64)
    #expect(record.revision == 1)
    #expect(record.createdAt == date)
    #expect(try record.state == anchor.snapshotRecord(createdAt: date).state)
    let text = String(decoding: try anchor.snapshot(createdAt: date), as: UTF8.self)
    #expect(text.contains(#""createdAt":"2026-11-18T"#))
  }

  @Test func aRecordEditedAsJSONAndWrittenAgainRestores() throws {
    let (model, anchor) = Thermostat().andAnchor()
    model.history = [1]
    var record = try anchor.snapshotRecord()
    guard case .object(var state) = record.state else { Issue.record("not an object"); return }
    state["name"] = "edited"
    record.state = .object(state)
    let data = try JSONEncoder().encode(record)
    let (restored, restoredAnchor) = try Thermostat.andAnchor(restoring: data)
    #expect(restored.name == "edited" && restored.history == [1])
    #expect(restoredAnchor.revision == record.revision)
    #expect(try JSONDecoder().decode(SnapshotRecord.self, from: data) == record)
  }

  @Test func aSharedModelIsRestoredShared() throws {
    let shared = Leaf(value: 1)
    let (_, anchor) = Forest(branches: [Branch(name: "a", leaves: [shared]), Branch(name: "b", leaves: [shared])]).andAnchor()
    let (restored, restoredAnchor) = try Forest.andAnchor(restoring: anchor.snapshot())
    let first = restored.branches[0].leaves[0]
    let second = restored.branches[1].leaves[0]
    #expect(first.id == shared.id && second.id == shared.id)
    first.value = 5
    #expect(second.value == 5, "both places hold one model again")
    #expect(try restoredAnchor.state().value.objectValue?["branches"]?.arrayValue?.count == 2)
  }

  @Test func aSnapshotIsTakenAtOneRevisionWhileOthersWrite() async throws {
    let (model, anchor) = Thermostat().andAnchor()
    let writes = 2_000
    let latestSnapshot = Highest()
    let snapshotsDuringTheWrites = Tally()
    // The deadline is about the transactions (each is a step), not the clock: the writer
    // and the snapshots take turns on a pool that the rest of the parallel run shares.
    try await withProgressDeadline("2,000 transactions with snapshots taken in between", progress: { Int(anchor.revision) }) {
      try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask {
          for step in 1...writes {
            model.node.transaction {
              model.history.append(step)
              model.name = "step \(step)"
            }
            // Every 100 writes, wait for a snapshot of this very revision, so that
            // snapshots are taken between writes. (Waiting for "one more snapshot" was
            // met, now and then, by one begun at revision 0 and counted late.)
            if step % 100 == 0 {
              while latestSnapshot.value < step && !Task.isCancelled { await Task.yield() }
            }
          }
        }
        group.addTask {
          while !Task.isCancelled {
            let record = try JSONDecoder().decode(SnapshotRecord.self, from: anchor.snapshot())
            let history = record.state.objectValue?["history"]?.arrayValue ?? []
            let name = record.state.objectValue?["name"]
            #expect(UInt64(history.count) == record.revision, "one transaction per revision")
            #expect(name == (history.isEmpty ? "hall" : .string("step \(history.count)")), "no torn read at revision \(record.revision)")
            if record.revision > 0 && record.revision < UInt64(writes) { snapshotsDuringTheWrites.add() }
            latestSnapshot.raise(to: Int(record.revision))
            if record.revision == UInt64(writes) { break }
            await Task.yield()
          }
        }
        try await group.waitForAll()
      }
    }
    #expect(snapshotsDuringTheWrites.value >= writes / 100 - 1, "snapshots were taken while the writer wrote")
  }
}
