import ArborJSON
import ArborRPC
import Testing

@testable import ArborPostgres

/// The reply a new leader stores for a forwarded intent its predecessor claimed and never
/// answered reads as every other `org.arbor.NotDurable`: its name and its code agree.
@Suite struct UnknownOutcomeReplyTests {
  @Test func itIsNotDurableByNameAndByCode() throws {
    let reply = try JSONValue(parsing: PostgresStore.unknownOutcomeReply)
    let response = try #require(RPCResponse(reply))
    let error = try #require(response.error)
    #expect(error.is(.notDurable))
    #expect(error.code == ArborError.notDurable.code)
    #expect(error.message.contains("may or may not have run"))
    #expect(reply["id"] == .null)
  }
}
