/// Waits until the tested trees have been quiet (no state change, storage write or event)
/// for `quiet`, and `condition` holds; then forgets everything recorded so far in
/// `resetting` (and, with `.tasks`, exempts the tasks running now): the test's baseline
/// starts here. Past `timeout`, reports a failure at this line and resets anyway.
///
/// ```swift
/// let model = DashboardModel().withAnchor()
/// await settle()                              // let activation finish
/// await settle { model.isReady }              // …and wait for a condition
/// await settle(resetting: .full.removing(.events))  // keep activation's events to assert
/// ```
nonisolated(nonsending) public func settle(
  resetting: Exhaustivity = .full, quiet: Duration = .milliseconds(50), timeout: Duration = ModelTesterDefaults.timeout,
  fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column,
  _ condition: () -> Bool = { true }
) async {
  let location = TesterLocation(fileID: fileID, filePath: filePath, line: line, column: column)
  guard let scope = currentScope("settle", location) else { return }
  let clock = ContinuousClock()
  let deadline = clock.now.advanced(by: timeout)
  var activity = scope.ledger.activity
  var quietSince = clock.now
  while true {
    try? await Task.sleep(for: .milliseconds(5))
    let now = scope.ledger.activity
    if now != activity {
      activity = now
      quietSince = clock.now
    }
    if clock.now - quietSince >= quiet && condition() { break }
    if clock.now >= deadline || Task.isCancelled {
      location.report("settle: the models did not settle within \(timeout) (they kept changing, or the condition stayed false)")
      break
    }
  }
  scope.ledger.reset(resetting)
}
