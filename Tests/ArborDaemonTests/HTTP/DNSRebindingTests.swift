import ArborTesting
import Foundation
import ProcessSlots
import Testing

/// DNS rebinding against a real loopback listener: a page of another site whose name was
/// pointed at 127.0.0.1 reaches the listener with its own name in `Host`. Every route and
/// the WebSocket refuse it (421, close 4421); the loopback names are served.
@Suite(.startsProcesses) struct DNSRebindingTests {
  /// Names a browser could send that are not this machine's loopback names.
  static func foreign(port: Int) -> [String] {
    [
      "127.evil.com", "127.0.0.1.evil.com", "127.0.0.1.nip.io", "[::1].evil.com", "[::1]evil",
      "127.evil.com:\(port)", "127.0.0.1.nip.io:\(port)", "[::1].evil.com:\(port)", "localhost.evil.com:\(port)",
      "127.1:\(port)", "0x7f.0.0.1:\(port)", "127.0.0.1:", "127.0.0.1:99999", "localhost.", "localhost.:\(port)",
      "127.0.0.256:\(port)", "",
    ]
  }

  @Test func foreignNamesAreRefusedOnEveryRouteAndTheWebSocket() async throws {
    try await withHTTPDaemon { _, port in
      for host in Self.foreign(port: port) {
        for path in ["/metrics", "/healthz", "/", "/readyz"] {
          let reply = try await HTTPTestClient.get(port: port, path, host: host)
          #expect(reply.status == 421, "GET \(path) with Host \(host.debugDescription): \(reply.status)")
          #expect(!reply.body.contains("arbor_"), "GET \(path) with Host \(host.debugDescription) showed metrics")
        }
        let close = try await Self.webSocketClose(port: port, host: host)
        #expect(close == 4421, "the WebSocket with Host \(host.debugDescription) was closed with \(close.map(String.init) ?? "nothing")")
      }
    }
  }

  @Test func twoHostHeadersAreRefused() async throws {
    try await withHTTPDaemon { _, port in
      for (first, second) in [("127.0.0.1:\(port)", "evil.com"), ("evil.com", "127.0.0.1:\(port)"), ("127.0.0.1:\(port)", "127.0.0.1:\(port)")] {
        let reply = try await HTTPTestClient.get(port: port, "/metrics", headers: [("Host", second)], host: first)
        #expect(reply.status == 421, "Host \(first), Host \(second): \(reply.status)")
        let close = try await Self.webSocketClose(port: port, host: first, headers: [("Host", second)])
        #expect(close == 4421, "the WebSocket with Host \(first), Host \(second) was closed with \(close.map(String.init) ?? "nothing")")
      }
    }
  }

  @Test func loopbackNamesAreServed() async throws {
    try await withHTTPDaemon { _, port in
      for host in ["127.0.0.1:\(port)", "127.0.0.1", "127.9.8.7:\(port)", "localhost:\(port)", "LOCALHOST:\(port)", "[::1]:\(port)", "[::1]"] {
        for path in ["/metrics", "/healthz", "/"] {
          let reply = try await HTTPTestClient.get(port: port, path, host: host)
          #expect(reply.status == 200, "GET \(path) with Host \(host): \(reply.status)")
        }
        try await WebSocketTestClient.with(port: port, host: host) { socket in
          try await socket.send(#"{"jsonrpc":"2.0","id":1,"method":"state.get","params":{"path":"/counters"}}"#)
          let reply = try await socket.reply(to: 1)
          #expect(reply["result"] != nil, "the WebSocket with Host \(host): \(reply)")
        }
      }
    }
  }

  /// The close code of a WebSocket opened with `host`, before any message is sent (nil if
  /// it answered something else first).
  static func webSocketClose(port: Int, host: String, headers: [(String, String)] = []) async throws -> Int? {
    try await WebSocketTestClient.with(port: port, headers: headers, host: host) { socket in
      let frame = try await socket.receive(what: "the close of a WebSocket with Host \(host.debugDescription)")
      return frame.closeCode
    }
  }
}
