import Arbor

/// Benchmarks of events and model work, each next to a baseline.
struct RuntimeBenchmarks {
  let divisor: Int

  func run() async {
    await events()
    await tasks()
  }

  // MARK: Events through a three-level tree

  func events() async {
    let count = 200_000 / divisor
    var report = Report("Events sent from a leaf to the root of a 3-level tree (\(count) events)")
    report.row("measure", "Arbor", "AsyncStream", "Arbor / AsyncStream")

    let root = EventRoot(branches: (0..<10).map { _ in EventBranch(leaves: (0..<10).map { _ in EventLeaf() }) }).withAnchor()
    let leaf = root.branches[9].leaves[9]
    let received = Counter()
    // The listener registers when the sequence is created, before the first send.
    let events = root.node.event(fromType: EventLeaf.self)
    let listener = Task.detached {
      for await _ in events { received.increment() }
    }
    leaf.node.send(.tick)
    while received.value == 0 { await Task.yield() }
    let start = ContinuousClock.now
    for _ in 0..<count { leaf.node.send(.tick) }
    while received.value < count + 1 { await Task.yield() }
    let arborSeconds = (ContinuousClock.now - start).seconds
    listener.cancel()

    // Baseline: the same number of values through one AsyncStream to one consumer.
    let (stream, continuation) = AsyncStream<Int>.makeStream()
    let streamed = Counter()
    let consumer = Task.detached {
      for await _ in stream { streamed.increment() }
    }
    let streamStart = ContinuousClock.now
    for value in 0..<count { continuation.yield(value) }
    while streamed.value < count { await Task.yield() }
    let streamSeconds = (ContinuousClock.now - streamStart).seconds
    continuation.finish()
    consumer.cancel()

    let arborRate = Double(count) / arborSeconds
    let streamRate = Double(count) / streamSeconds
    report.row("events per second", "\(Int(arborRate))", "\(Int(streamRate))", ratio(arborRate, streamRate))
    report.row("ns per event", format(1e9 / arborRate, "ns"), format(1e9 / streamRate, "ns"), "")
    report.print()
  }

  // MARK: Starting and cancelling tasks

  func tasks() async {
    let count = 10_000 / divisor
    var report = Report("Starting \(count) suspended tasks, then cancelling them (ms)")
    report.row("measure", "node.task", "Task { }", "node.task / Task")

    let model = SmallModel().withAnchor()
    let started = Counter()
    let finished = Counter()
    let startClock = ContinuousClock.now
    var cancellables: [Cancellable] = []
    cancellables.reserveCapacity(count)
    for _ in 0..<count {
      cancellables.append(model.node.task {
        started.increment()
        try? await Task.sleep(for: .seconds(3_600))
        finished.increment()
      })
    }
    while started.value < count { await Task.yield() }
    let arborStart = (ContinuousClock.now - startClock).seconds
    let cancelClock = ContinuousClock.now
    for cancellable in cancellables { cancellable.cancel() }
    while finished.value < count { await Task.yield() }
    let arborCancel = (ContinuousClock.now - cancelClock).seconds

    let plainStarted = Counter()
    let plainFinished = Counter()
    let plainClock = ContinuousClock.now
    var tasks: [Task<Void, Never>] = []
    tasks.reserveCapacity(count)
    for _ in 0..<count {
      tasks.append(Task {
        plainStarted.increment()
        try? await Task.sleep(for: .seconds(3_600))
        plainFinished.increment()
      })
    }
    while plainStarted.value < count { await Task.yield() }
    let plainStart = (ContinuousClock.now - plainClock).seconds
    let plainCancelClock = ContinuousClock.now
    for task in tasks { task.cancel() }
    while plainFinished.value < count { await Task.yield() }
    let plainCancel = (ContinuousClock.now - plainCancelClock).seconds

    report.row("start (until all running)", format(arborStart * 1e3, "ms"), format(plainStart * 1e3, "ms"), ratio(arborStart, plainStart))
    report.row("cancel (until all ended)", format(arborCancel * 1e3, "ms"), format(plainCancel * 1e3, "ms"), ratio(arborCancel, plainCancel))
    report.print()
  }
}

extension Duration {
  var seconds: Double {
    Double(components.seconds) + Double(components.attoseconds) / 1e18
  }
}
