import ArgumentParser

/// Where the HTTP listener of `--http` listens: a host and a port.
///
/// `127.0.0.1:9090`, `[::1]:9090`, `localhost:9090`, or `:9090` (loopback). Port 0 lets the
/// system pick a free one; the daemon logs the address it got and `daemon.status` reports it.
///
/// ```swift
/// let address = HTTPAddress(argument: "127.0.0.1:9090")!
/// address.isLoopback   // true
/// ```
public struct HTTPAddress: Sendable, Hashable, ExpressibleByArgument, CustomStringConvertible {
  public var host: String
  public var port: Int

  public init(host: String, port: Int) {
    self.host = host
    self.port = port
  }

  public init?(argument: String) {
    guard let colon = argument.lastIndex(of: ":"), let port = Int(argument[argument.index(after: colon)...]),
      (0...65_535).contains(port)
    else { return nil }
    var host = String(argument[..<colon])
    if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
    if host.isEmpty { host = "127.0.0.1" }
    guard !host.contains(" "), !host.contains("/") else { return nil }
    self.init(host: host, port: port)
  }

  /// Whether only this machine can reach it: `localhost`, 127.0.0.0/8 or `::1`.
  public var isLoopback: Bool {
    host == "localhost" || host == "::1" || host.hasPrefix("127.")
  }

  public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

  public var defaultValueDescription: String { description }

  public static var defaultCompletionKind: CompletionKind { .default }
}
