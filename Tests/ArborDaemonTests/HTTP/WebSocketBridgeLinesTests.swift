import NIOCore
import Testing

@testable import ArborDaemon

/// A client's message as the request line the daemon reads (`WebSocketBridge.requestLine`),
/// the cases the `wsmessage` fuzz target checks, written out.
@Suite struct WebSocketBridgeLinesTests {
  @Test func aMessageIsOneLineItsBreaksBlanks() throws {
    let line = try #require(WebSocketBridge.requestLine(ByteBuffer(string: "{\r\n\"a\":\n1}\n"), maxSize: 100))
    #expect(String(buffer: line) == "{  \"a\": 1} \n")
  }

  /// A message over the limit is refused (the WebSocket closes with 1009) however it was
  /// framed; one at the limit is a line the daemon's framer takes.
  @Test func theLimitIsTheMessagesLength() throws {
    #expect(WebSocketBridge.requestLine(ByteBuffer(string: String(repeating: "x", count: 17)), maxSize: 16) == nil)
    let line = try #require(WebSocketBridge.requestLine(ByteBuffer(string: String(repeating: "x", count: 16)), maxSize: 16))
    #expect(line.readableBytes == 17)
    #expect(WebSocketBridge.requestLine(ByteBuffer(), maxSize: 0).map { String(buffer: $0) } == "\n")
  }
}
