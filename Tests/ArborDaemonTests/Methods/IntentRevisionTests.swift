import ArborClient
import ArborJSON
import ArborTesting
import ProcessSlots
import Testing

/// The revision in an intent's reply is the intent's own commit, under concurrency: no two
/// replies name one revision, and the journal records each named revision as a write of
/// that intent on that target.
@Suite(.startsProcesses) struct IntentRevisionTests {
  @Test func concurrentIntentsEachNameTheirOwnCommit() async throws {
    let connections = 4
    let calls = 300
    try await withDaemon { daemon, _ in
      let setup = try await daemon.connect()
      for _ in 0..<connections { try await setup.call("intent.call", ["intent": "addButtonTapped"]) }
      let replies = try await withThrowingTaskGroup(of: [(UInt64, Int)].self) { group in
        for row in 0..<connections {
          group.addTask {
            let client = try await daemon.connect()
            defer { client.close() }
            var named: [(UInt64, Int)] = []
            for index in 0..<calls {
              let reply = try await Self.call(client, row: row, index: index, answeredLast: named.last?.0)
              let revision = try #require(reply["revision"]?.intValue)
              #expect(reply["firstRevision"] == nil, "one write, one revision: \(reply)")
              named.append((UInt64(revision), row))
            }
            return named
          }
        }
        var all: [(UInt64, Int)] = []
        for try await part in group { all += part }
        return all
      }
      #expect(replies.count == connections * calls)
      let revisions = replies.map(\.0)
      #expect(Set(revisions).count == revisions.count, "\(revisions.count - Set(revisions).count) replies named a revision another reply named too")
      let journal = Dictionary(uniqueKeysWithValues: try await CrashTests.journal(setup, since: 0).map { ($0.revision, $0) })
      var wrong: [String] = []
      for (revision, row) in replies {
        guard let entry = journal[revision] else {
          wrong.append("revision \(revision) is not in the journal")
          continue
        }
        if entry.intent != "incrementTapped" || entry.counter != row {
          wrong.append("revision \(revision), named in a reply to row \(row), is \(entry.intent) of row \(entry.counter.map(String.init) ?? "-")")
        }
      }
      #expect(wrong.isEmpty, "\(wrong.count) replies named another write: \(wrong.prefix(5))")
    }
  }

  /// One increment of row `row`, with a deadline. A reply that does not come (seen once
  /// in a whole run beside two CPU-bound loops) is told apart: the same connection is
  /// asked for `daemon.status`, whose answer shows whether the connection still works
  /// and whether the intent was committed (the revision) though its reply never came.
  private static func call(_ client: ArborConnection, row: Int, index: Int, answeredLast: UInt64?) async throws -> JSONValue {
    let params: JSONValue = ["target": .string("/counters/\(row)/counter"), "intent": "incrementTapped"]
    do {
      return try await withDeadline("the reply to row \(row)'s call \(index) (its last reply named revision \(answeredLast.map(String.init) ?? "none"))") {
        try await client.call("intent.call", params)
      }
    } catch let error as DeadlineExceeded {
      let status = try? await withDeadline("daemon.status on the same connection", seconds: 5) { try await client.call("daemon.status") }
      let answer = status.map { status in "answered: revision " + (status["revision"].map { "\($0)" } ?? "?") } ?? "was not answered either"
      Issue.record("row \(row)'s call \(index) was not answered; on the same connection daemon.status \(answer)")
      throw error
    }
  }
}
