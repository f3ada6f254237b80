#if HTTP
import HTTPTypes

/// Names of this machine's loopback interface, as a `Host` header gives them.
///
/// Parsed, not matched by prefix: `127.evil.com`, `127.0.0.1.nip.io` or `[::1].evil.com`
/// are DNS names that anyone can point at 127.0.0.1, and a browser sends them as they are.
///
/// ```swift
/// LoopbackHost.isLoopback("127.0.0.1:8080")   // true
/// LoopbackHost.isLoopback("127.0.0.1.nip.io")   // false
/// ```
enum LoopbackHost {
  /// The request has exactly one `Host` (its authority), and it names loopback.
  static func matches(_ request: HTTPRequest) -> Bool {
    // The first Host becomes the authority; a second one stays among the header fields.
    guard let second = HTTPField.Name("host"), request.headerFields[second] == nil else { return false }
    return isLoopback(request.authority)
  }

  /// `localhost` (in any case), a full dotted quad in 127.0.0.0/8 without leading zeros, or
  /// exactly `[::1]`; each with an optional port of digits only, 1 to 65535. Anything else,
  /// an absent or empty host included, is not loopback.
  static func isLoopback(_ authority: String?) -> Bool {
    guard let authority, !authority.isEmpty, authority.utf8.count <= 64 else { return false }
    let host: Substring
    let port: Substring?
    if authority.hasPrefix("[") {
      guard let close = authority.firstIndex(of: "]") else { return false }
      host = authority[...close]
      let rest = authority[authority.index(after: close)...]
      if rest.isEmpty {
        port = nil
      } else {
        guard rest.first == ":" else { return false }
        port = rest.dropFirst()
      }
      guard host == "[::1]" else { return false }
    } else {
      let parts = authority.split(separator: ":", omittingEmptySubsequences: false)
      guard parts.count <= 2 else { return false }
      host = parts[0]
      port = parts.count == 2 ? parts[1] : nil
      guard host.lowercased() == "localhost" || isLoopbackQuad(host) else { return false }
    }
    if let port { return isPort(port) }
    return true
  }

  /// Four decimal parts of 0 to 255 without leading zeros, the first 127.
  static func isLoopbackQuad(_ host: Substring) -> Bool {
    let parts = host.split(separator: ".", omittingEmptySubsequences: false)
    guard parts.count == 4, parts[0] == "127" else { return false }
    return parts.allSatisfy { part in
      guard (1...3).contains(part.utf8.count), isDigits(part) else { return false }
      guard part.utf8.count == 1 || part.first != "0" else { return false }
      return Int(part).map { $0 <= 255 } ?? false
    }
  }

  /// 1 to 65535, digits only.
  static func isPort(_ text: Substring) -> Bool {
    guard (1...5).contains(text.utf8.count), isDigits(text) else { return false }
    return Int(text).map { (1...65535).contains($0) } ?? false
  }

  /// ASCII digits only (no sign, no other script's digits).
  private static func isDigits(_ text: Substring) -> Bool {
    text.utf8.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
  }
}
#endif
