import Arbor
import ArborJSON

extension IntentDispatcher {
  /// Calls an intent like ``Arbor/IntentDispatcher/call(_:on:parameters:wait:)``, with a
  /// deadline: an intent that has not returned after `seconds` fails the test at the
  /// caller's line, as "Timed out after 20 s waiting for the intent rename on /sensors/0"
  /// (see ``withDeadline(_:seconds:fileID:filePath:line:column:_:)``). The intent's own
  /// errors pass through.
  ///
  /// ```swift
  /// let outcome = try await dispatcher.callWithDeadline("incrementTapped", on: .path("/counters/0/counter"))
  /// #expect(outcome.revision == 1)
  /// ```
  public func callWithDeadline(
    _ intent: String,
    on target: IntentTarget = .root,
    parameters: JSONValue = [:],
    wait: IntentWait = .committed,
    seconds: Double = Deadline.defaultSeconds,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) async throws -> Outcome {
    try await withDeadline(
      "the intent \(intent) on \(target)", seconds: seconds, fileID: fileID, filePath: filePath, line: line, column: column
    ) {
      try await self.call(intent, on: target, parameters: parameters, wait: wait)
    }
  }
}
