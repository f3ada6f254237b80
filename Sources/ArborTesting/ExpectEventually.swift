/// Waits until `condition` holds, checking it every 2 ms, for at most `seconds`.
///
/// Returns true as soon as the condition holds. Otherwise the failure is recorded at the
/// caller's line, as "Timed out after 20 s waiting for `what`", and it returns false.
/// The condition is read from another task, so it reads only thread-safe state: models,
/// locked test doubles.
///
/// ```swift
/// worker.node.task { worker.value = 42 }
/// await expectEventually("the task to set the value to 42") { worker.value == 42 }
/// ```
///
/// It proves that something happens; it cannot prove that something does not. For a
/// negative, send a later marker along the same path and wait for the marker: whatever
/// was to arrive before it has arrived by then.
@discardableResult
public func expectEventually(
  _ what: @autoclosure () -> String,
  seconds: Double = Deadline.defaultSeconds,
  fileID: StaticString = #fileID,
  filePath: StaticString = #filePath,
  line: UInt = #line,
  column: UInt = #column,
  _ condition: @escaping @Sendable () -> Bool
) async -> Bool {
  if condition() { return true }
  do {
    try await withDeadline(what(), seconds: seconds, fileID: fileID, filePath: filePath, line: line, column: column) {
      while !condition() { try await Task.sleep(for: .milliseconds(2)) }
    }
    return true
  } catch {
    return false
  }
}
