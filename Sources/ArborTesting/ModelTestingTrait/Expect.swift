import IssueReporting

/// The scope `expect`, `require`, `settle` and `withExhaustivity` work in; reports their
/// use outside one.
func currentScope(_ function: String, _ location: TesterLocation) -> ModelTestingScope? {
  if let scope = ModelTestingScope.current { return scope }
  location.report("\(function) is only meaningful in a model test: add the .modelTesting trait to the test or its suite, or wrap the body in withModelTesting { … }")
  return nil
}

/// Waits until every predicate holds, then accounts for what they read (state, local,
/// environment and preference values), the events `didSend` matched and the probe calls
/// `wasCalled` matched. Past `timeout`, reports each predicate that does not hold, with
/// the values the block read, at this line. For `.modelTesting` tests (and
/// `withModelTesting`).
///
/// ```swift
/// await expect {
///   model.count == 42                 // a diff on failure for your own types
///   model.isLoading == false
///   model.didSend(.startMeeting)
/// }
/// ```
nonisolated(nonsending) public func expect(
  timeout: Duration = ModelTesterDefaults.timeout,
  fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column,
  @AssertionBuilder _ predicates: () -> [AssertionPredicate]
) async {
  let location = TesterLocation(fileID: fileID, filePath: filePath, line: line, column: column)
  guard let scope = currentScope("expect", location) else { return }
  await AssertionLoop.assert(scope.ledger, timeout: timeout, location: location, predicates)
}

/// Waits until `condition` holds, as the block form of `expect` does with one predicate.
///
/// ```swift
/// await expect(model.counters.count == 1)
/// ```
nonisolated(nonsending) public func expect(
  _ condition: @autoclosure () -> Bool, timeout: Duration = ModelTesterDefaults.timeout,
  fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
) async {
  await expect(timeout: timeout, fileID: fileID, filePath: filePath, line: line, column: column) { condition() }
}

/// Waits until `predicate` holds: `didSend` and `wasCalled` as a single expectation.
///
/// ```swift
/// await expect(model.didSend(.startMeeting))
/// await expect(onSave.wasCalled(with: "draft"))
/// ```
nonisolated(nonsending) public func expect(
  _ predicate: @autoclosure () -> AssertionPredicate, timeout: Duration = ModelTesterDefaults.timeout,
  fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
) async {
  await expect(timeout: timeout, fileID: fileID, filePath: filePath, line: line, column: column) { predicate() }
}

/// Waits until `value` is not nil and returns it, accounting for what it read; past
/// `timeout`, reports a failure at this line and throws ``UnwrapTimedOut``.
///
/// ```swift
/// let row = try await require(model.counters.first)
/// row.counter.incrementTapped()
/// ```
nonisolated(nonsending) public func require<Value>(
  _ value: @autoclosure () -> Value?, timeout: Duration = ModelTesterDefaults.timeout,
  fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
) async throws -> Value {
  let location = TesterLocation(fileID: fileID, filePath: filePath, line: line, column: column)
  guard let scope = currentScope("require", location) else { throw UnwrapTimedOut(timeout: .zero) }
  return try await AssertionLoop.unwrap(scope.ledger, timeout: timeout, location: location, value)
}
