@testable import Arbor
import Testing

/// Waits (bounded) until `condition` holds.
func eventually(_ condition: @Sendable () -> Bool, timeout: Duration = .seconds(20)) async -> Bool {
  let deadline = ContinuousClock.now + timeout
  while !condition() {
    if ContinuousClock.now > deadline { return false }
    try? await Task.sleep(for: .milliseconds(2))
  }
  return true
}

/// A weak reference, for counting what is still alive.
struct Weak<Object: AnyObject> {
  weak var value: Object?
  init(_ value: Object) { self.value = value }
}

/// A model whose work the tests drive.
@Model struct Worker {
  var value = 0
  var label = ""
  @ModelIgnored var log = EventLog()

  @discardableResult
  func start(_ name: String) -> Cancellable {
    node.task {
      await withTaskCancellationHandler {
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
    #expect(await eventually { worker.value == 42 })
    #expect(await eventually { worker._$modelContext.withLock { worker._$modelContext.hooks?.cancellables.isEmpty ?? true } })
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
      #expect(await eventually { log.all.filter { $0.hasPrefix("started") }.count == count })
      crew.workers.removeAll()
    }
    #expect(await eventually { log.all.filter { $0.hasSuffix("caught CancellationError") }.count == count })
    #expect(log.all.filter { $0.hasPrefix("cleanup") }.count == count)
    var alive = count
    for _ in 0..<2_500 where alive > 0 {
      alive = contexts.filter { $0.value != nil }.count
      if alive > 0 { try? await Task.sleep(for: .milliseconds(2)) }
    }
    #expect(alive == 0, "live contexts of removed models: no task keeps one alive")
    _ = anchor
  }

  @Test func aParentsWorkIsCancelledBeforeItsChildrenAreDeactivated() async {
    let log = EventLog()
    let (crew, anchor) = Crew(log: log).andAnchor()
    let worker = Worker(label: "child", log: log)
    crew.workers.append(worker)
    worker.node.onCancel { log.append("deactivated child") }
    #expect(await eventually { log.all.contains("crew task running") })
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
    #expect(await eventually { log.all == ["cancelled first"] })
    search("third")
    #expect(await eventually { log.all == ["cancelled first", "cancelled second"] })
  }

  @Test func cancelForIdAndCancelAll() async {
    let log = EventLog()
    let worker = Worker(log: log).withAnchor()
    worker.start("a").cancel(for: "group")
    worker.start("b").cancel(for: "group")
    worker.start("c")
    worker.node.cancelAll(for: "group")
    #expect(await eventually { Set(log.all) == ["cancelled a", "cancelled b"] })
    worker.start("d").cancel()
    #expect(await eventually { log.all.contains("cancelled d") })
    #expect(!log.all.contains("cancelled c"))
  }

  @Test func aCancellationContextCancelsSeveralTasksAtOnce() async {
    let log = EventLog()
    let worker = Worker(log: log).withAnchor()
    worker.node.cancellationContext(for: "save") {
      worker.start("validate")
      worker.start("upload")
    }
    worker.start("other")
    worker.node.cancelAll(for: "save")
    #expect(await eventually { Set(log.all) == ["cancelled validate", "cancelled upload"] })
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
    #expect(await eventually { started.value == 1 })
    worker.node.cancelAll(for: "flow")
    #expect(await eventually { log.all == ["cancelled inheriting"] })
  }

  @Test func cancellingInsideATransactionWaitsForTheCommit() async {
    let log = EventLog()
    let worker = Worker(log: log).withAnchor()
    worker.start("inside").cancel(for: "job")
    try? await Task.sleep(for: .milliseconds(20))
    worker.node.transaction {
      worker.node.cancelAll(for: "job")
      log.append("transaction body ends")
    }
    #expect(await eventually { log.all == ["transaction body ends", "cancelled inside"] })
  }

  @Test func workOnADestructedModelDoesNotRun() async {
    let log = EventLog()
    let (crew, anchor) = Crew(log: log).andAnchor()
    let worker = Worker(log: log)
    crew.workers = [worker]
    crew.workers = []
    let ran = Tally()
    worker.node.task { ran.add() }
    try? await Task.sleep(for: .milliseconds(20))
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
    #expect(await eventually { log.all == ["value 0"] })
    worker.value = 1
    #expect(await eventually { log.all.last == "value 1" })
  }

  @Test func forEachTakesAnyAsyncSequence() async {
    let log = EventLog()
    let worker = Worker(log: log).withAnchor()
    let (stream, continuation) = AsyncStream<Int>.makeStream()
    worker.node.forEach(stream) { log.append("got \($0)") }
    continuation.yield(1)
    continuation.yield(2)
    continuation.finish()
    #expect(await eventually { log.all == ["got 1", "got 2"] })
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
    #expect(await eventually { log.all == ["start 1"] })
    continuation.yield(2)
    #expect(await eventually { log.all.contains("start 2") })
    #expect(log.all.firstIndex(of: "cancel 1") != nil)
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
    #expect(await eventually { log.all == ["caught Failure", "ok 2"] })
  }

  @Test func forEachStopsWhenTheModelIsRemoved() async {
    let log = EventLog()
    let (crew, anchor) = Crew(log: log).andAnchor()
    let worker = Worker(log: log)
    crew.workers = [worker]
    let (stream, continuation) = AsyncStream<Int>.makeStream()
    worker.node.forEach(stream) { log.append("got \($0)") }
    continuation.yield(1)
    #expect(await eventually { log.all.contains("got 1") })
    crew.workers = []
    try? await Task.sleep(for: .milliseconds(20))
    continuation.yield(2)
    try? await Task.sleep(for: .milliseconds(20))
    #expect(!log.all.contains("got 2"))
    _ = anchor
  }
}
