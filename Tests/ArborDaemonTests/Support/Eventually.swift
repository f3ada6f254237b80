import ArborTesting

/// Polls an async condition until it holds, within a deadline that names it.
func eventually(_ what: String, seconds: Double = 10, _ condition: @escaping @Sendable () async throws -> Bool) async throws {
  try await withDeadline(what, seconds: seconds) {
    while try await !condition() { try await Task.sleep(for: .milliseconds(10)) }
  }
}
