import IssueReporting

/// Reports a misuse of the runtime: a test failure under a test runner, a runtime warning
/// otherwise. Never a crash.
func reportModelIssue(_ message: String, fileID: StaticString = #fileID, line: UInt = #line) {
  reportIssue(message, fileID: fileID, line: line)
}
