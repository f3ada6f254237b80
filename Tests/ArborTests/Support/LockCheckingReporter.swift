import ConcurrencyExtras
import IssueReporting

/// An issue reporter that records each message and whether, while it was being reported, a
/// thread of its own could run `probe` (which reads a model): a reporter called with that
/// model's lock held makes the probe wait, and the check fails after its deadline.
///
/// ```swift
/// let reporter = LockCheckingReporter { _ = branch.name }
/// withIssueReporters([reporter]) { branch.extra = frozen }
/// #expect(reporter.reports.map(\.lockWasFree) == [true])
/// ```
final class LockCheckingReporter: IssueReporter {
  struct Report: Sendable {
    var message: String
    var lockWasFree: Bool
  }

  private let probe: @Sendable () -> Void
  private let recorded = LockIsolated<[Report]>([])

  init(probe: @escaping @Sendable () -> Void) { self.probe = probe }

  var reports: [Report] { recorded.value }

  func reportIssue(
    _ message: @autoclosure () -> String?, severity: IssueSeverity,
    fileID: StaticString, filePath: StaticString, line: UInt, column: UInt
  ) {
    let free = OtherThread.finishes(probe)
    let text = message() ?? ""
    recorded.withValue { $0.append(Report(message: text, lockWasFree: free)) }
  }
}
