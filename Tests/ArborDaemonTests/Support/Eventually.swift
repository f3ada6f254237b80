import ArborTesting

/// Polls an async condition until it holds, within a deadline that names it (as long as
/// every other wait of the tests: longer under the sanitizers).
func eventually(_ what: String, seconds: Double = Deadline.defaultSeconds, _ condition: @escaping @Sendable () async throws -> Bool) async throws {
  try await withDeadline(what, seconds: seconds) {
    while try await !condition() { try await Task.sleep(for: .milliseconds(10)) }
  }
}
