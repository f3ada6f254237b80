import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// A crash at a chosen point, for the tests that measure what a crash can lose: with
/// `ARBOR_TEST_KILL_AFTER_COMMIT=N` in its environment, the process kills itself with
/// SIGKILL right after the journal transaction that holds revision N (or a later one) is
/// committed, before any reply that waited for it is sent. Unset, it costs one load of a
/// constant per journal transaction.
enum CrashPoint {
  static let afterCommit: UInt64? = ProcessInfo.processInfo.environment["ARBOR_TEST_KILL_AFTER_COMMIT"].flatMap(UInt64.init)

  static func crash() -> Never {
    kill(getpid(), SIGKILL)
    _exit(137)
  }
}
