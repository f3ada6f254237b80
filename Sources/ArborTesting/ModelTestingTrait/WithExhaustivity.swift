import Arbor

/// Runs part of a model test's body with other categories to check: what `body` does in
/// the categories not in `exhaustivity` need not be asserted (tasks it starts need not
/// end). Assertions inside still account for what they read.
///
/// ```swift
/// await withExhaustivity(.off) { model.triggerSideEffects() }
/// await withExhaustivity([.state]) { model.reload() }   // its events need no didSend
/// ```
///
/// What `body` starts and what lands after it returns is recorded as usual: wait inside
/// `body` (with `expect`) for asynchronous effects to be exempted.
nonisolated(nonsending) public func withExhaustivity<R>(
  _ exhaustivity: Exhaustivity,
  fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column,
  _ body: () async throws -> R
) async rethrows -> R {
  let location = TesterLocation(fileID: fileID, filePath: filePath, line: line, column: column)
  guard let scope = currentScope("withExhaustivity", location) else { return try await body() }
  let mark = scope.ledger.mark()
  let result = try await TaskExemption.$isExempt.withValue(!exhaustivity.contains(.tasks)) { try await body() }
  scope.ledger.forget(since: mark, keeping: exhaustivity)
  return result
}
