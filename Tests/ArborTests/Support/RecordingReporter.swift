import ConcurrencyExtras
import IssueReporting

/// An issue reporter that keeps each message and the line it was reported at.
///
/// ```swift
/// let reporter = RecordingReporter()
/// withIssueReporters([reporter]) { reportIssue("boom") }
/// #expect(reporter.messages == ["boom"])
/// ```
final class RecordingReporter: IssueReporter {
  struct Report: Sendable {
    var message: String
    var line: UInt
  }

  private let recorded = LockIsolated<[Report]>([])

  var reports: [Report] { recorded.value }
  var messages: [String] { recorded.value.map(\.message) }

  func reportIssue(
    _ message: @autoclosure () -> String?, severity: IssueSeverity,
    fileID: StaticString, filePath: StaticString, line: UInt, column: UInt
  ) {
    let text = message() ?? ""
    recorded.withValue { $0.append(Report(message: text, line: line)) }
  }
}
