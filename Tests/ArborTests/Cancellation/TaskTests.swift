@testable import Arbor
import ArborTesting
import Testing

/// A weak reference, for counting what is still alive.
struct Weak<Object: AnyObject & Sendable>: Sendable {
  weak var value: Object?
  init(_ value: Object) { self.value = value }
}

/// A model whose work the tests drive.
@Model struct Worker {
  var value = 0
  var label = ""
  @ModelIgnored var log = EventLog()
  /// The names of the `start` tasks that are running: from then on their cancellation is
  /// logged the moment it happens.
  @ModelIgnored var running = EventLog()

  @discardableResult
  func start(_ name: String) -> Cancellable {
    node.task {
      await withTaskCancellationHandler {
        running.append(name)
        try? await Task.sleep(for: .seconds(600))
      } onCancel: {
        log.append("cancelled \(name)")
      }
    }
  }

  @discardableResult
  func sleepy(_ name: String) -> Cancellable {
    node.task {
      log.append("started \(name)")
      try await Task.sleep(for: .seconds(600))
    } catch: { error in
      log.append("\(name) caught \(type(of: error))")
    }
  }
}

@Model struct Crew {
  var workers: [Worker] = []
  @ModelIgnored var log = EventLog()

  func onActivate() {
    let log = self.log
    node.task {
      await withTaskCancellationHandler {
        log.append("crew task running")
        try? await Task.sleep(for: .seconds(600))
      } onCancel: {
        log.append("cancelled crew task")
      }
    }
  }
}

@Suite struct TaskTests {
  @Test func aTaskRunsAndIsForgottenWhenItEnds() async {
    let log = EventLog()
    let worker = Worker(log: log).withAnchor()
    worker.node.task { worker.value = 42 }
    await expectEventually("the task to set the value to 42") { worker.value == 42 }
    await expectEventually("the ended task to be forgotten") {
      worker._$modelContext.withLock { worker._$modelContext.hooks?.cancellables.isEmpty ?? true }
    }
  }

  @Test func removingModelsCancelsTheirSuspendedTasksRunsTheirCatchAndLeavesNoContextAlive() async {
    let log = EventLog()
    let (crew, anchor) = Crew(log: log).andAnchor()
    let count = 20
    var contexts: [Weak<ModelContext<Worker>>] = []
    do {
      let workers = (0..<count).map { _ in Worker(log: log) }
      contexts = workers.map { Weak($0._$modelContext) }
      crew.workers = workers
      for (index, worker) in workers.enumerated() {
        worker.sleepy("w\(index)")
        worker.node.forEach(Observed { worker.value }) { _ in }
        worker.node.onCancel { log.append("cleanup w\(index)") }
      }
      await expectEventually("the 20 sleepy tasks to start") { log.all.filter { $0.hasPrefix("started") }.count == count }
      crew.workers.removeAll()
    }
    await expectEventually("the 20 cancelled tasks to run their catch") {
      log.all.filter { $0.hasSuffix("caught CancellationError") }.count == count
    }
    #expect(log.all.filter { $0.hasPrefix("cleanup") }.count == count)
    let removed = contexts
    await expectEventually("the contexts of the 20 removed models to be released (no task keeps one alive)") {
      removed.allSatisfy { $0.value == nil }
    }
    _ = anchor
  }

  @Test func aParentsWorkIsCancelledBeforeItsChildrenAreDeactivated() async {
    let log = EventLog()
    let (crew, anchor) = Crew(log: log).andAnchor()
    let worker = Worker(label: "child", log: log)
    crew.workers.append(worker)
    worker.node.onCancel { log.append("deactivated child") }
    await expectEventually("the crew's task to run") { log.all.contains("crew task running") }
    log.clear()
    withExtendedLifetime(anchor) {}
    _ = consume anchor
    #expect(log.all == ["cancelled crew task", "deactivated child"])
  }

  @Test func cancelInFlightReplacesTheRunningTask() async {
    let log = EventLog()
    let worker = Worker(log: log).withAnchor()
    func search(_ name: String) {
      worker.start(name).cancelInFlight()
    }
    search("first")
    search("second")
    await expectEventually("the second search to cancel the first") { log.all == ["cancelled first"] }
    search("third")
    await expectEventually("the third search to cancel the second") { log.all == ["cancelled first", "cancelled second"] }
  }

  @Test func cancelForIdAndCancelAll() async {
    let log = EventLog()
    let worker = Worker(log: log).withAnchor()
    worker.start("a").cancel(for: "group")
    worker.start("b").cancel(for: "group")
    let c = worker.start("c")
    // Once a task runs, its cancellation is logged the moment it happens: had `cancelAll`
    // reached "c", "cancelled c" would be in the log as soon as it returned.
    await expectEventually("the tasks a, b and c to run") { Set(worker.running.all) == ["a", "b", "c"] }
    worker.node.cancelAll(for: "group")
    await expectEventually("a and b to be cancelled") { Set(log.all) == ["cancelled a", "cancelled b"] }
    worker.start("d").cancel()
    await expectEventually("d to be cancelled") { log.all.contains("cancelled d") }
    #expect(!log.all.contains("cancelled c"), "c has no id")
    c.cancel()
    await expectEventually("c to be cancelled on its own") { log.all.contains("cancelled c") }
    #expect(log.all.suffix(2) == ["cancelled d", "cancelled c"])
  }

  @Test func aCancellationContextCancelsSeveralTasksAtOnce() async {
    let log = EventLog()
    let worker = Worker(log: log).withAnchor()
    worker.node.cancellationContext(for: "save") {
      worker.start("validate")
      worker.start("upload")
    }
    worker.start("other")
    await expectEventually("the three tasks to run") { Set(worker.running.all) == ["validate", "upload", "other"] }
    worker.node.cancelAll(for: "save")
    await expectEventually("the two tasks of the context to be cancelled") {
      Set(log.all) == ["cancelled validate", "cancelled upload"]
    }
    worker.start("marker").cancel()
    await expectEventually("the marker task to be cancelled") { log.all.contains("cancelled marker") }
    #expect(Set(log.all) == ["cancelled validate", "cancelled upload", "cancelled marker"], "other is outside the context")
  }

  @Test func nestedWorkCanInheritTheCancellationContext() async {
    let log = EventLog()
    let worker = Worker(log: log).withAnchor()
    let started = Tally()
    worker.node.cancellationContext(for: "flow") {
      worker.node.task {
        worker.start("inheriting").inheritCancellationContext()
        worker.start("independent")
        started.add()
        try? await Task.sleep(for: .seconds(600))
      }
    }
    await expectEventually("the outer task to start its nested work") { started.value == 1 }
    await expectEventually("both nested tasks to run") { Set(worker.running.all) == ["inheriting", "independent"] }
    worker.node.cancelAll(for: "flow")
    await expectEventually("the inheriting task to be cancelled") { log.all == ["cancelled inheriting"] }
    worker.start("marker").cancel()
    await expectEventually("the marker task to be cancelled") { log.all.contains("cancelled marker") }
    #expect(log.all == ["cancelled inheriting", "cancelled marker"], "the independent task keeps running")
  }

  @Test func cancellingInsideATransactionWaitsForTheCommit() async {
    let log = EventLog()
    let worker = Worker(log: log).withAnchor()
    worker.start("inside").cancel(for: "job")
    // Running, the task logs its cancellation the moment it happens: inside the transaction
    // unless the cancellation waits for the commit.
    await expectEventually("the task to run") { worker.running.all == ["inside"] }
    worker.node.transaction {
      worker.node.cancelAll(for: "job")
      log.append("transaction body ends")
    }
    await expectEventually("the task to be cancelled after the commit") {
      log.all == ["transaction body ends", "cancelled inside"]
    }
  }

  @Test func workOnADestructedModelDoesNotRun() {
    let log = EventLog()
    let (crew, anchor) = Crew(log: log).andAnchor()
    let worker = Worker(log: log)
    crew.workers = [worker]
    crew.workers = []
    let ran = Tally()
    let handle = worker.node.task { ran.add() }
    // No task was created, so there is nothing that could run later.
    #expect(handle.entry == nil && handle.context == nil, "a handle on nothing")
    #expect(worker._$modelContext.withLock { worker._$modelContext.hooks?.cancellables.isEmpty ?? true })
    #expect(ran.value == 0)
    _ = anchor
  }
}

@Suite struct ForEachTests {
  @Test func forEachFollowsObserved() async {
    let log = EventLog()
    let worker = Worker(log: log).withAnchor()
    worker.node.forEach(Observed { worker.value }) { value in
      log.append("value \(value)")
    }
    await expectEventually("the first value") { log.all == ["value 0"] }
    worker.value = 1
    await expectEventually("the changed value") { log.all.last == "value 1" }
  }

  @Test func forEachTakesAnyAsyncSequence() async {
    let log = EventLog()
    let worker = Worker(log: log).withAnchor()
    let (stream, continuation) = AsyncStream<Int>.makeStream()
    worker.node.forEach(stream) { log.append("got \($0)") }
    continuation.yield(1)
    continuation.yield(2)
    continuation.finish()
    await expectEventually("both elements") { log.all == ["got 1", "got 2"] }
  }

  @Test func cancelPreviousCancelsTheWorkOfThePreviousElement() async {
    let log = EventLog()
    let worker = Worker(log: log).withAnchor()
    let (stream, continuation) = AsyncStream<Int>.makeStream()
    worker.node.forEach(stream, cancelPrevious: true) { value in
      await withTaskCancellationHandler {
        log.append("start \(value)")
        try? await Task.sleep(for: .seconds(600))
      } onCancel: {
        log.append("cancel \(value)")
      }
    }
    continuation.yield(1)
    await expectEventually("the work of 1 to start") { log.all == ["start 1"] }
    continuation.yield(2)
    await expectEventually("the work of 2 to start and that of 1 to be cancelled") {
      log.all.contains("start 2") && log.all.contains("cancel 1")
    }
    #expect(log.all.first == "start 1" && log.all.count == 3)
  }

  @Test func errorsOfTheOperationGoToCatchAndIterationGoesOn() async {
    struct Failure: Error {}
    let log = EventLog()
    let worker = Worker(log: log).withAnchor()
    let (stream, continuation) = AsyncStream<Int>.makeStream()
    worker.node.forEach(stream) { value in
      if value == 1 { throw Failure() }
      log.append("ok \(value)")
    } catch: { error in
      log.append("caught \(type(of: error))")
    }
    continuation.yield(1)
    continuation.yield(2)
    await expectEventually("the error of 1, then 2") { log.all == ["caught Failure", "ok 2"] }
  }

  @Test func forEachStopsWhenTheModelIsRemoved() async {
    let log = EventLog()
    let (crew, anchor) = Crew(log: log).andAnchor()
    let worker = Worker(log: log)
    crew.workers = [worker]
    let (stream, continuation) = AsyncStream<Int>.makeStream()
    let terminated = Tally()
    continuation.onTermination = { _ in terminated.raise() }
    worker.node.forEach(stream) { log.append("got \($0)") }
    continuation.yield(1)
    await expectEventually("the first element") { log.all.contains("got 1") }
    crew.workers = []
    // The cancelled forEach stops iterating, which ends the stream: nothing sent later can
    // be delivered.
    await expectEventually("the forEach of the removed model to end the stream") { terminated.isRaised }
    guard case .terminated = continuation.yield(2) else {
      Issue.record("the stream still takes elements after its model was removed")
      return
    }
    #expect(log.all.filter { $0.hasPrefix("got") } == ["got 1"])
    _ = anchor
  }
}
