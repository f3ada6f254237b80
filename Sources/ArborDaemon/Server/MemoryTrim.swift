import ArborLocking
import Foundation
import Logging
import NIOConcurrencyHelpers
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// Gives the memory a large request needed back to the system once it is done.
///
/// Freed memory does not leave the process by itself. glibc's malloc serves blocks below
/// its mmap threshold from arenas, and raises that threshold (up to 32 MiB) each time a
/// large mapped block is freed, so after one 16 MiB line every later large buffer comes
/// from an arena too; and an arena gives back only the free space at its top, so the many
/// small blocks of a 100,000-request batch leave its pages resident. Two measures:
///
/// - ``configure(logger:)`` pins the thresholds (once per process): blocks of 256 KiB or
///   more get mappings of their own, unmapped when freed; a heap's top is given back once
///   1 MiB of it is free.
/// - ``request(releasing:)``, called after a request of at least ``largeBytes`` (its line
///   or its reply), makes a thread of its own call `malloc_trim(0)`, which gives back the
///   free pages inside every arena: ``delay`` after the request (what is freed meanwhile,
///   such as a reply being written, goes too), at most once per ``interval``, never on an
///   event loop or the cooperative pool.
///
/// `malloc_trim` does not give back the free space at the top of a thread's arena (only
/// the main arena's), and that is where most of a large batch ends up: its requests were
/// parsed on one thread and handled on another, and both arenas' tops grew. glibc trims a
/// thread arena's top only when a block of 64 KiB or more is freed into it. So the thread
/// that asks for a trim, and the threads that did the request's work off the event loop,
/// each leave an ``ArenaMark`` (a 96 KiB block of their arena), and the trim frees the
/// marks first: each free trims its arena's top. Without the marks, a 100,000-request batch
/// left 54 MB resident in about half of the runs.
///
/// Elsewhere than glibc, none of this does anything.
enum MemoryTrim {
  /// A line or a reply at least this long asks for a trim once it is done (1 MiB).
  static let largeBytes = 1 << 20
  /// Blocks at least this large are mapped on their own (glibc's `M_MMAP_THRESHOLD`).
  static let mmapThreshold: Int32 = 256 << 10
  /// Free space at a heap's top given back at once (glibc's `M_TRIM_THRESHOLD`).
  static let trimThreshold: Int32 = 1 << 20
  /// How long after a request the trim waits.
  static let delay = Duration.milliseconds(200)
  /// The shortest time between two trims.
  static let interval = Duration.seconds(1)

  /// Pins glibc's thresholds and keeps `logger` for the trims; only the first call does it.
  static func configure(logger: Logger) {
    trimmer.configure(logger: logger)
  }

  /// Asks for a trim, with the marks of the arenas the request's work used off this
  /// thread; this thread's arena is marked too. Requests that come before the trim runs
  /// are one trim.
  static func request(releasing marks: [ArenaMark] = []) {
    trimmer.request(marks + [ArenaMark.here()].compactMap { $0 })
  }

  private static let trimmer = Trimmer()
}

/// A block of the current thread's malloc arena, kept until the next trim frees it: a
/// free of 64 KiB or more is what makes glibc give back the free top of that arena.
struct ArenaMark: Sendable, Equatable {
  /// The size of a mark: at least 64 KiB (glibc's `FASTBIN_CONSOLIDATION_THRESHOLD`),
  /// below the mmap threshold (even glibc's default, 128 KiB) so that it comes from the
  /// arena.
  static let size = 96 << 10

  fileprivate let address: UInt
  fileprivate let thread: UInt

  /// A mark of the calling thread's arena, or nil when there is nothing to trim (not glibc).
  static func here() -> ArenaMark? {
    #if canImport(Glibc)
      guard Malloc.trim != nil, let block = malloc(size) else { return nil }
      return ArenaMark(address: UInt(bitPattern: block), thread: UInt(pthread_self()))
    #else
      return nil
    #endif
  }

  /// Frees the block (which trims its arena's top).
  fileprivate func release() {
    #if canImport(Glibc)
      free(UnsafeMutableRawPointer(bitPattern: address))
    #endif
  }
}

/// The glibc functions, looked up at run time: `malloc.h` is not part of Swift's `Glibc`
/// module.
private enum Malloc {
  typealias Trim = @convention(c) (Int) -> Int32
  typealias Option = @convention(c) (Int32, Int32) -> Int32

  /// `M_TRIM_THRESHOLD` and `M_MMAP_THRESHOLD` in glibc's `malloc.h`.
  static let trimThresholdOption: Int32 = -1
  static let mmapThresholdOption: Int32 = -3

  #if canImport(Glibc)
    static let trim: Trim? = symbol("malloc_trim", as: Trim.self)
    static let option: Option? = symbol("mallopt", as: Option.self)

    private static func symbol<F>(_ name: String, as type: F.Type) -> F? {
      guard let process = dlopen(nil, RTLD_NOW), let address = dlsym(process, name) else { return nil }
      return unsafeBitCast(address, to: type)
    }
  #else
    static let trim: Trim? = nil
    static let option: Option? = nil
  #endif

  /// The process's resident memory in bytes (`/proc/self/statm`), or nil.
  static func residentBytes() -> Int? {
    #if canImport(Glibc)
      guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return nil }
      let fields = text.split(separator: " ")
      guard fields.count > 1, let pages = Int(fields[1]) else { return nil }
      return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    #else
      return nil
    #endif
  }
}

private final class Trimmer: Sendable {
  /// 1 while a trim is asked for and has not started.
  private let pending = ConditionLock<Int>(value: 0)
  private let started = Atomic<Bool>(false)
  /// The marks waiting for the next trim, at most one per thread.
  private let marks = LockedState<[UInt: ArenaMark]>([:])
  private let logger = LockedState<Logger?>(nil)

  func configure(logger: Logger) {
    guard self.logger.withLock({ current in
      defer { if current == nil { current = logger } }
      return current == nil
    })
    else { return }
    guard let option = Malloc.option else { return }
    _ = option(Malloc.mmapThresholdOption, MemoryTrim.mmapThreshold)
    _ = option(Malloc.trimThresholdOption, MemoryTrim.trimThreshold)
  }

  func request(_ newMarks: [ArenaMark]) {
    guard Malloc.trim != nil else { return }
    let extra = marks.withLock { marks in
      newMarks.filter { mark in
        guard marks[mark.thread] == nil else { return true }
        marks[mark.thread] = mark
        return false
      }
    }
    // A thread with a mark waiting needs no second one.
    for mark in extra { mark.release() }
    if !started.exchange(true, ordering: .acquiringAndReleasing) {
      Thread.detachNewThread { [self] in
        Thread.current.name = "arbor-trim"
        run()
      }
    }
    pending.lock()
    pending.unlock(withValue: 1)
  }

  private func run() {
    guard let trim = Malloc.trim else { return }
    while true {
      pending.lock(whenValue: 1)
      pending.unlock(withValue: 0)
      Thread.sleep(forTimeInterval: Self.seconds(MemoryTrim.delay))
      // Asked again meanwhile: this trim answers that too.
      pending.lock()
      pending.unlock(withValue: 0)
      let before = Malloc.residentBytes()
      let start = ContinuousClock.now
      for mark in marks.withLock({ marks in
        defer { marks = [:] }
        return marks.values
      }) {
        mark.release()
      }
      _ = trim(0)
      let took = ContinuousClock.now - start
      if let logger = logger.withLock({ $0 }), let before, let after = Malloc.residentBytes() {
        logger.debug("malloc_trim took \(took): resident memory \(before >> 20) MB → \(after >> 20) MB")
      }
      Thread.sleep(forTimeInterval: Self.seconds(MemoryTrim.interval))
    }
  }

  private static func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
  }
}
