import Testing

@testable import ArborDaemon

/// Which `Host` values name loopback: the parser alone, no listener (see
/// `DNSRebindingTests` for the same names against a real daemon).
@Suite struct LoopbackHostTests {
  static let loopback = [
    "127.0.0.1", "127.0.0.1:8080", "127.1.2.3:1", "127.255.255.255:65535", "localhost", "localhost:9090",
    "LOCALHOST:9090", "LocalHost", "[::1]", "[::1]:9090", "127.0.0.1:080",
  ]
  static let foreign = [
    // DNS names anyone can point at 127.0.0.1.
    "127.evil.com", "127.0.0.1.evil.com", "127.0.0.1.nip.io", "[::1].evil.com", "[::1]evil", "localhost.evil.com",
    "127.evil.com:8080", "evil.com", "attacker.example:9090",
    // Not a full, canonical dotted quad, or not a port.
    "127.1", "127.0.1", "0x7f.0.0.1", "0177.0.0.1", "127.0.0.01", "127.0.0.256", "127.0.0.1.", "127.0.0.1:", "127.0.0.1:0",
    "127.0.0.1:99999", "127.0.0.1:65536", "127.0.0.1:+80", "127.0.0.1:80:80", "127.0.0.1:8o", "127.0.0.١",
    "localhost.", "localhost:", "[::1]:", "[::1]:0", "[0:0:0:0:0:0:0:1]", "[::ffff:127.0.0.1]", "::1", "[::1",
    "128.0.0.1", "0.0.0.0", "", " 127.0.0.1", "127.0.0.1 ", "user@127.0.0.1",
  ]

  @Test(arguments: loopback) func loopbackNamesAreAccepted(_ host: String) {
    #expect(LoopbackHost.isLoopback(host))
  }

  @Test(arguments: foreign) func everythingElseIsRefused(_ host: String) {
    #expect(!LoopbackHost.isLoopback(host))
  }

  @Test func noHostIsRefused() {
    #expect(!LoopbackHost.isLoopback(nil))
  }
}
