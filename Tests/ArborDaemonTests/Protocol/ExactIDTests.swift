import ArborTesting
import Foundation
import ProcessSlots
import Testing

/// A reply's id is the request's id: numbers that `Int64` cannot hold come back with the
/// digits the request wrote, alone, in batches, and in error replies.
@Suite(.startsProcesses) struct ExactIDTests {
  /// Sends `line` on a raw socket and returns the reply line as text.
  func exchange(_ daemon: DaemonUnderTest, _ line: String) async throws -> String {
    let socket = try RawSocket(path: daemon.socket)
    socket.send(line + "\n")
    let received = try await withDeadline("the reply to \(line.prefix(80))") {
      var received: [UInt8] = []
      while !received.contains(0x0A) {
        received += socket.readAvailable()
        if !received.contains(0x0A) { await socket.waitUntilReadable() }
      }
      return received
    }
    return String(decoding: received.prefix { $0 != 0x0A }, as: UTF8.self)
  }

  @Test func bigAndFractionalIDsAreEchoedDigitForDigit() async throws {
    try await withDaemon { daemon, _ in
      for id in ["1208925819614629174706177", "18446744073709551617", "-9223372036854775809", "1.50", "1e400000"] {
        let reply = try await exchange(daemon, #"{"jsonrpc":"2.0","id":\#(id),"method":"daemon.status"}"#)
        if id == "1e400000" {
          // Out of range for any number type: a parse error, with a null id.
          #expect(reply.contains(#""id":null"#) && reply.contains("-32700"), "\(reply)")
        } else {
          #expect(reply.hasPrefix(#"{"id":\#(id),"jsonrpc":"2.0","result":{"#), "id \(id): \(reply.prefix(120))")
        }
      }
      // An error reply keeps the id too.
      let error = try await exchange(daemon, #"{"jsonrpc":"2.0","id":18446744073709551617,"method":"no.such"}"#)
      #expect(error.contains(#","id":18446744073709551617,"jsonrpc":"2.0"}"#), "\(error)")
      #expect(error.contains("-32601"))
      // In a batch, each member's id, with the exact ones among ordinary ones.
      let batch = try await exchange(
        daemon,
        #"[{"jsonrpc":"2.0","id":7,"method":"daemon.status"},{"jsonrpc":"2.0","id":99999999999999999999,"method":"state.get"},{"jsonrpc":"2.0","method":"state.get"},{"jsonrpc":"2.0","id":"s","method":"nope"}]"#)
      #expect(batch.contains(#"{"id":7,"jsonrpc":"2.0","result":"#), "\(batch.prefix(200))")
      #expect(batch.contains(#"{"id":99999999999999999999,"jsonrpc":"2.0","result":"#), "\(batch.prefix(400))")
      #expect(batch.contains(#""id":"s","jsonrpc":"2.0"}"#))
    }
  }
}
