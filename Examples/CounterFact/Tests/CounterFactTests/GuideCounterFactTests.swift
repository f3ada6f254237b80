import Arbor
import ArborDaemonTesting
import ArborTesting
import ConcurrencyExtras
import CounterFact
import Dependencies
import Foundation
import Testing

/// CounterFact as the SwiftModel guide writes it: the parent hands each child closures
/// that capture it, and the child calls them. The example's own models (`AppModel` and the
/// rest, in `Sources/CounterFact`) send events instead; both work in process, only the
/// event-based tree can be saved and restored (see "Closures or events" in Models.md).
enum Guide {
  @Model struct CounterModel {
    var count = 0
    var alert: Alert? = nil
    let onFact: @Sendable (Int, String) -> Void

    func decrementTapped() { count -= 1 }
    func incrementTapped() { count += 1 }

    func factButtonTapped() {
      node.task {
        onFact(count, try await node.factClient.fetch(count))
      } catch: { error in
        alert = Alert(title: "Error", message: "Couldn't load fact.")
      }
    }
  }

  @Model struct CounterRowModel {
    var counter: CounterModel
    let onRemove: @Sendable () -> Void

    func removeButtonTapped() { onRemove() }
  }

  @Model struct FactPromptModel {
    let count: Int
    var fact: String
    let onDismiss: @Sendable () -> Void

    func dismissTapped() { onDismiss() }
  }

  @Model struct AppModel {
    var counters: [CounterRowModel] = []
    var factPrompt: FactPromptModel? = nil

    var sum: Int {
      counters.reduce(0) { $0 + $1.counter.count }
    }

    func addButtonTapped() {
      let counter = CounterModel(onFact: { count, fact in
        factPrompt = FactPromptModel(count: count, fact: fact, onDismiss: { factPrompt = nil })
      })
      counters.append(
        CounterRowModel(
          counter: counter,
          onRemove: { counters.removeAll { $0.counter.id == counter.id } }
        ))
    }
  }
}

/// The guide's closure-wired CounterFact, next to the event-based one of `CounterFactTests`.
///
/// Each tree is made with `andAnchor()`: a child's closure captures the parent, and a model
/// value holds its state, so the tree holds itself and would outlive its root.
@Suite struct GuideCounterFactTests {
  let goodFacts = FactClient { "\($0) is a good number." }

  /// The guide's own test of the fact, with Arbor's waiting helper.
  @Test func testFact() async throws {
    let (appModel, anchor) = Guide.AppModel().andAnchor {
      $0.factClient.fetch = { "\($0) is a good number." }
    }
    appModel.addButtonTapped()
    let counter = try #require(appModel.counters.first).counter
    counter.incrementTapped()
    counter.factButtonTapped()
    await expectEventually("the fact about 1 to be the prompt") {
      appModel.factPrompt?.count == 1 && appModel.factPrompt?.fact == "1 is a good number."
    }
    _ = anchor
  }

  @Test func addingAndCountingUp() {
    let (app, anchor) = Guide.AppModel().andAnchor { $0.factClient = goodFacts }
    app.addButtonTapped()
    app.addButtonTapped()
    app.counters[0].counter.incrementTapped()
    app.counters[1].counter.incrementTapped()
    app.counters[1].counter.incrementTapped()
    app.counters[1].counter.decrementTapped()
    #expect(app.counters.map(\.counter.count) == [1, 1])
    #expect(app.sum == 2)
    _ = anchor
  }

  @Test func aFailedFetchBecomesAnAlert() async {
    struct Offline: Error {}
    let (app, anchor) = Guide.AppModel().andAnchor { $0.factClient = FactClient { _ in throw Offline() } }
    app.addButtonTapped()
    let counter = app.counters[0].counter
    counter.factButtonTapped()
    await expectEventually("the failure to become an alert") { counter.alert != nil }
    #expect(counter.alert == Alert(title: "Error", message: "Couldn't load fact."))
    #expect(app.factPrompt == nil)
    _ = anchor
  }

  /// A closure runs at once, in the caller: the row is gone when `removeButtonTapped()`
  /// returns (an event reaches the parent asynchronously).
  @Test func rowsAreRemovedByTheirClosureAtOnce() {
    let (app, anchor) = Guide.AppModel().andAnchor { $0.factClient = goodFacts }
    app.addButtonTapped()
    app.addButtonTapped()
    let keep = app.counters[1]
    app.counters[0].removeButtonTapped()
    #expect(app.counters.map(\.id) == [keep.id])
    _ = anchor
  }

  @Test func thePromptIsDismissedByItsClosure() async {
    let (app, anchor) = Guide.AppModel().andAnchor { $0.factClient = goodFacts }
    app.addButtonTapped()
    app.counters[0].counter.factButtonTapped()
    await expectEventually("a prompt") { app.factPrompt != nil }
    app.factPrompt?.dismissTapped()
    #expect(app.factPrompt == nil)
    _ = anchor
  }

  /// The closures are not state: the tree's state reads as the event-based one's, and a
  /// snapshot is refused with a message that names the closure.
  @Test func theClosureTreeWorksInProcessOnly() throws {
    let (app, anchor) = Guide.AppModel().andAnchor { $0.factClient = goodFacts }
    app.addButtonTapped()
    let row = app.counters[0]
    let state = try anchor.state().value
    #expect(
      state == [
        "id": .string(app.id.description), "factPrompt": nil,
        "counters": [
          [
            "id": .string(row.id.description),
            "counter": ["id": .string(row.counter.id.description), "count": 0, "alert": nil],
          ]
        ],
      ])

    #expect(CounterFact.AppModel.isRestorable)
    #expect(!Guide.AppModel.isRestorable)
    #expect(
      Guide.AppModel.unrestorableProperties.map(\.description) == [
        "CounterRowModel.onRemove (let onRemove: @Sendable () -> Void)",
        "CounterModel.onFact (let onFact: @Sendable (Int, String) -> Void)",
        "FactPromptModel.onDismiss (let onDismiss: @Sendable () -> Void)",
      ])
    do {
      _ = try anchor.snapshot()
      Issue.record("a tree wired with closures was saved")
    } catch {
      #expect(
        "\(error)".hasPrefix(
          "a tree of AppModel cannot be saved or restored: it can hold a CounterRowModel, whose 'let onRemove: @Sendable () -> Void' is not state"
        ), "\(error)")
    }
  }

  /// A daemon refuses to start with the closure tree, before it listens, and says which
  /// property is in the way.
  @Test func aDaemonRefusesTheClosureTreeAtStartUp() async throws {
    let refusal = try await withDeadline("the daemon's start to be refused") {
      do {
        try await withDaemonTester(Guide.AppModel()) { _, _ in
          Issue.record("the daemon started with a tree wired with closures")
        }
        return ""
      } catch {
        return "\(error)"
      }
    }
    #expect(refusal.hasPrefix("cannot save the first snapshot to "), "\(refusal)")
    #expect(
      refusal.contains(
        "a tree of AppModel cannot be saved or restored: it can hold a CounterRowModel, whose 'let onRemove: @Sendable () -> Void' is not state"
      ), "\(refusal)")
  }

  /// Releasing the anchor ends the tree, closures and all: the fetch in flight is cancelled.
  @Test func releasingTheAnchorEndsTheTree() async {
    let started = LockIsolated(false)
    let cancelled = LockIsolated(false)
    var anchor: ModelAnchor<Guide.AppModel>?
    do {
      let (app, owner) = Guide.AppModel().andAnchor {
        $0.factClient = FactClient { _ in
          started.setValue(true)
          try await withTaskCancellationHandler {
            try await Task.sleep(for: .seconds(60))
          } onCancel: {
            cancelled.setValue(true)
          }
          return "too late"
        }
      }
      anchor = owner
      app.addButtonTapped()
      app.counters[0].counter.factButtonTapped()
    }
    await expectEventually("the fetch to start") { started.value }
    anchor = nil
    await expectEventually("the fetch to be cancelled with the tree") { cancelled.value }
    _ = anchor
  }
}
