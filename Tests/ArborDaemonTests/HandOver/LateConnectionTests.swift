import NIOCore
import Testing

@testable import ArborDaemon

/// A connection the listening socket took just before it closed, and that the daemon
/// admits only once a hand-over has begun: it waits behind a closed gate and goes to the
/// next process with the others, instead of being closed (its client saw a reset).
@Suite struct LateConnectionTests {
  static let add = #"{"jsonrpc":"2.0","id":1,"method":"intent.call","params":{"intent":"add","params":{"amount":1}}}"# + "\n"

  @Test func oneAdmittedOnceAHandOverBeganWaitsForTheNextProcess() async throws {
    let hosted = try HostedPipeline()
    hosted.parts.handingOver.store(true, ordering: .releasing)
    hosted.parts.handler.stopping.store(true, ordering: .releasing)
    let late = try await hosted.connect()
    try await late.send(Self.add)
    #expect(late.channel.isActive, "the connection was closed")
    #expect(try await late.replies().isEmpty, "this process answered a request the next one is to answer")
    let channel = late.channel
    let held = try await late.loop.executeInContext { try channel.pipeline.syncOperations.handler(type: HandOverGate.self).held }
    #expect(held == Array(Self.add.utf8), "what the client sent is kept for the next process")
    #expect(hosted.value == 0)
    await hosted.close()
  }

  @Test func oneAdmittedWhileADaemonStopsWithoutHandingOverIsClosed() async throws {
    let hosted = try HostedPipeline()
    hosted.parts.handler.stopping.store(true, ordering: .releasing)
    // Closed as it is admitted: the testing channel's connect finds it closed.
    await #expect(throws: ChannelError.ioOnClosedChannel) { _ = try await hosted.connect() }
    await hosted.close()
  }
}
