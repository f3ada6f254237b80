import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Runs `body` on a thread of its own instead of the cooperative pool.
///
/// The pool has as many threads as cores (two on the test machines) and the suites run in
/// parallel on it: a test that computes for seconds between two suspension points holds a
/// pool thread all that time, and on a loaded machine the tasks of other tests wait their
/// turn until their deadlines expire. CPU-bound test loops (long random runs, thousands of
/// encodings and comparisons) therefore run here: the body, and the child tasks it starts
/// (`async let`, task groups), run on a new thread through a task executor preference; the
/// kernel shares the cores between that thread and the pool, so the pool stays free for
/// the other tests. What the body awaits with a deadline (`withDeadline`, a
/// `DeadlineIterator`) still runs its own small task on the pool, then resumes the body on
/// its thread. The thread ends when the body returns.
///
/// ```swift
/// @Test func aLongRandomRun() async throws {
///   try await onOwnThread("the random run") {
///     for step in 0..<2_000 { … }
///   }
/// }
/// ```
func onOwnThread<T, Failure: Error>(
  _ name: String, _ body: () async throws(Failure) -> T
) async throws(Failure) -> T {
  let executor = OwnThreadExecutor(name: name)
  defer { executor.finish() }
  return try await withTaskExecutorPreference(executor, operation: body)
}

/// A task executor that runs its jobs, in order, on one thread of its own.
///
/// `finish()` lets the thread end once no job is left. A job enqueued after that (none is
/// expected: the tasks that prefer this executor have ended) gets a new thread rather than
/// being lost, which would leave its task suspended for good.
final class OwnThreadExecutor: TaskExecutor, @unchecked Sendable {
  // @unchecked: `jobs`, `finishing` and `running` are only touched with `condition` locked.
  private let name: String
  private let condition = NSCondition()
  private var jobs: [UnownedJob] = []
  private var finishing = false
  private var running = false

  init(name: String) {
    self.name = name
    condition.lock()
    startThread()
    condition.unlock()
  }

  func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    condition.lock()
    jobs.append(job)
    if !running { startThread() }
    condition.signal()
    condition.unlock()
  }

  /// Lets the thread end once it has run every job enqueued so far.
  func finish() {
    condition.lock()
    finishing = true
    condition.signal()
    condition.unlock()
  }

  /// With `condition` locked.
  private func startThread() {
    running = true
    let thread = Thread { [self] in
      // Named through its `comm` file, so that `gdb`, `perf` and `top -H` show it (the
      // first 15 bytes) rather than the name of the thread that started it.
      if let comm = fopen("/proc/thread-self/comm", "w") {
        fputs(String(decoding: name.utf8.prefix(15), as: UTF8.self), comm)
        fclose(comm)
      }
      runJobs()
    }
    thread.stackSize = 8 << 20
    thread.start()
  }

  private func runJobs() {
    while true {
      condition.lock()
      while jobs.isEmpty && !finishing { condition.wait() }
      if jobs.isEmpty {
        running = false
        condition.unlock()
        return
      }
      let job = jobs.removeFirst()
      condition.unlock()
      job.runSynchronously(on: asUnownedTaskExecutor())
    }
  }
}
