import Arbor
import ArborJSON
import ArborTesting
import CounterFact
import Testing

/// CounterFact driven from outside, the way a daemon's clients will: by intent name,
/// target and JSON parameters.
@Suite struct CounterFactIntentTests {
  @Test func theAppsOperationsAreIntents() {
    #expect(AppModel.intentNames == ["addButtonTapped", "removeButtonTapped", "dismissFactTapped"])
    #expect(CounterModel.intentNames == ["incrementTapped", "decrementTapped", "factButtonTapped", "alertDismissed"])
    #expect(CounterRowModel.intentNames == ["removeButtonTapped"])
    #expect(FactPromptModel.intentNames == ["dismissTapped", "getAnotherFactButtonTapped"])
  }

  @Test func drivingTheAppByIntents() async throws {
    let (app, anchor) = AppModel().andAnchor { $0.factClient = FactClient { "\($0) is a number." } }
    let dispatcher = IntentDispatcher(anchor)
    _ = try await dispatcher.callWithDeadline("addButtonTapped")
    _ = try await dispatcher.callWithDeadline("addButtonTapped")
    _ = try await dispatcher.callWithDeadline("incrementTapped", on: .path("/counters/1/counter"))
    let outcome = try await dispatcher.callWithDeadline("incrementTapped", on: .path("/counters/1/counter"))
    #expect(app.counters.map(\.counter.count) == [0, 2])
    #expect(outcome.revision == 4)

    _ = try await dispatcher.callWithDeadline("factButtonTapped", on: .id(app.counters[1].counter.id))
    await expectEventually("the fact about 2 to be the prompt") { app.factPrompt?.fact == "2 is a number." }
    _ = try await dispatcher.callWithDeadline("dismissTapped", on: .path("/factPrompt"))
    await expectEventually("the prompt to be dismissed") { app.factPrompt == nil }

    let first = app.counters[0].id
    _ = try await dispatcher.callWithDeadline("removeButtonTapped", parameters: ["id": .string(first.description)])
    #expect(app.counters.count == 1 && app.counters[0].counter.count == 2)
    _ = try await dispatcher.callWithDeadline("removeButtonTapped", on: .path("/counters/0"))
    await expectEventually("the last row to be removed") { app.counters.isEmpty }
  }

  @Test func aBadCallChangesNothing() async throws {
    let (app, anchor) = AppModel(counters: [CounterRowModel()]).andAnchor()
    let dispatcher = IntentDispatcher(anchor)
    await #expect(throws: IntentError.missingParameter(intent: "removeButtonTapped", parameter: "id")) {
      try await dispatcher.callWithDeadline("removeButtonTapped")
    }
    await #expect(throws: IntentError.self) {
      try await dispatcher.callWithDeadline("removeButtonTapped", parameters: ["id": "not an id"])
    }
    await #expect(throws: IntentError.unknownTarget("at '/counters/3/counter'")) {
      try await dispatcher.callWithDeadline("incrementTapped", on: .path("/counters/3/counter"))
    }
    #expect(app.counters.count == 1)
    #expect(anchor.revision == 0)
  }
}

/// The same operations on a live app and on one restored from its snapshot give equal
/// states.
@Suite struct CounterFactRestoreTests {
  static func step(_ app: AppModel, _ random: inout SeededRandomNumberGenerator) {
    func anyRow() -> CounterRowModel? { app.counters.isEmpty ? nil : app.counters[Int.random(in: 0..<app.counters.count, using: &random)] }
    switch Int.random(in: 0..<7, using: &random) {
    case 0, 1: app.addButtonTapped()
    case 2: anyRow()?.counter.incrementTapped()
    case 3: anyRow()?.counter.decrementTapped()
    case 4: if let row = anyRow() { app.removeButtonTapped(id: row.id) }
    case 5: app.factPrompt = FactPromptModel(count: Int.random(in: 0..<10, using: &random), fact: "a fact")
    default: app.dismissFactTapped()
    }
  }

  @Test func aRestoredAppGoesOnLikeTheLiveOne() throws {
    var snapshotSteps: Set<Int> = []
    for seed in UInt64(1)...40 {
      let outcome = try RestoreRoundTrip.run(seed: seed, steps: 80, root: { AppModel() }, step: Self.step)
      #expect(outcome.mismatch == nil, "seed \(seed), snapshot after step \(outcome.snapshotStep): \(outcome.mismatch ?? "")")
      snapshotSteps.insert(outcome.snapshotStep)
    }
    #expect(snapshotSteps.count > 40 / 3, "snapshots were taken at many different steps, not only at the end")
  }

  @Test func theSnapshotLooksLikeTheDesign() throws {
    let (app, anchor) = AppModel().andAnchor()
    app.addButtonTapped()
    app.counters[0].counter.incrementTapped()
    let state = try anchor.state().value
    let row = app.counters[0]
    #expect(
      state == [
        "id": .string(app.id.description), "factPrompt": nil,
        "counters": [
          [
            "id": .string(row.id.description),
            "counter": ["id": .string(row.counter.id.description), "count": 1, "alert": nil, "isLoadingFact": false],
          ]
        ],
      ])
  }
}
