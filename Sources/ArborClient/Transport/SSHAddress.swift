/// A daemon on another machine, reached through ssh: `ssh://[user@]host[:port][/path/to.sock]`,
/// as `DOCKER_HOST=ssh://user@host` names a Docker daemon.
///
/// The path, when there is one, is the daemon's socket on that machine; without one the
/// remote `arborctl bridge` finds it by its own rule (the only socket in the daemons'
/// default folder of the remote user).
///
/// ```swift
/// let address = try SSHAddress(parsing: "ssh://ops@build-1:2222/run/arbor/counterfactd.sock")
/// print(address.user ?? "", address.host, address.port ?? 22, address.socketPath ?? "")   // ops build-1 2222 /run/arbor/counterfactd.sock
/// print(address)                                                                           // ssh://ops@build-1:2222/run/arbor/counterfactd.sock
/// ```
public struct SSHAddress: Sendable, Hashable, CustomStringConvertible {
  /// The remote user; nil for ssh's own choice (its configuration, else the local user).
  public var user: String?
  /// The host name or address (an IPv6 address without its brackets).
  public var host: String
  /// The port of the remote sshd; nil for ssh's own choice (its configuration, else 22).
  public var port: Int?
  /// The daemon's socket on the remote machine; nil for the remote `arborctl`'s rule.
  public var socketPath: String?

  /// An address from its parts.
  ///
  /// ```swift
  /// let address = SSHAddress(user: "ops", host: "build-1")   // ssh://ops@build-1
  /// ```
  public init(user: String? = nil, host: String, port: Int? = nil, socketPath: String? = nil) {
    self.user = user
    self.host = host
    self.port = port
    self.socketPath = socketPath
  }

  /// Why a text is not an `ssh://` address.
  public struct ParseError: Error, Sendable, CustomStringConvertible {
    /// What was wrong, with the text given.
    public var description: String
  }

  /// Reads `ssh://[user@]host[:port][/path/to.sock]`. A host or user that starts with `-`
  /// is refused (ssh would read it as an option).
  ///
  /// ```swift
  /// let address = try SSHAddress(parsing: "ssh://[::1]:2222")   // host "::1", port 2222
  /// ```
  public init(parsing text: String) throws(ParseError) {
    func fail(_ why: String) -> ParseError {
      ParseError(description: "'\(text)' is not an ssh address (ssh://[user@]host[:port][/path/to.sock]): \(why)")
    }
    let scheme = "ssh://"
    guard text.lowercased().hasPrefix(scheme) else { throw fail("it does not start with ssh://") }
    let rest = text.dropFirst(scheme.count)
    let slash = rest.firstIndex(of: "/") ?? rest.endIndex
    var authority = rest[..<slash]
    let path = String(rest[slash...])
    var user: String?
    if let at = authority.lastIndex(of: "@") {
      user = String(authority[..<at])
      authority = authority[authority.index(after: at)...]
      guard let name = user, !name.isEmpty else { throw fail("the user before @ is empty") }
      guard !name.hasPrefix("-") else { throw fail("a user may not start with '-'") }
    }
    var host: Substring
    var portText: Substring?
    if authority.hasPrefix("[") {
      guard let close = authority.firstIndex(of: "]") else { throw fail("an IPv6 address needs its closing ]") }
      host = authority[authority.index(after: authority.startIndex)..<close]
      let after = authority[authority.index(after: close)...]
      if !after.isEmpty {
        guard after.hasPrefix(":") else { throw fail("only :PORT may follow ]") }
        portText = after.dropFirst()
      }
    } else if let colon = authority.lastIndex(of: ":") {
      host = authority[..<colon]
      portText = authority[authority.index(after: colon)...]
    } else {
      host = authority
    }
    guard !host.isEmpty else { throw fail("the host is missing") }
    guard !host.hasPrefix("-") else { throw fail("a host may not start with '-'") }
    guard !host.contains(where: { $0.isWhitespace || $0 == "/" || $0 == "@" }) else { throw fail("the host has a space, '/' or '@' in it") }
    var port: Int?
    if let portText {
      guard let number = Int(portText), (1...65_535).contains(number) else { throw fail("the port must be a number from 1 to 65535, not '\(portText)'") }
      port = number
    }
    guard !path.contains("?"), !path.contains("#") else { throw fail("it may not have a query or a fragment") }
    self.init(user: user, host: String(host), port: port, socketPath: path.count > 1 ? path : nil)
  }

  /// Whether `text` names a daemon through ssh (it starts with `ssh://`).
  ///
  /// ```swift
  /// SSHAddress.isSSH("ssh://build-1")   // true
  /// ```
  public static func isSSH(_ text: String) -> Bool { text.lowercased().hasPrefix("ssh://") }

  /// `[user@]host`: the destination ssh is given.
  public var destination: String { user.map { "\($0)@\(host)" } ?? host }

  /// The address as it is written: `ssh://user@host:port/path`.
  public var description: String {
    let shownHost = host.contains(":") ? "[\(host)]" : host
    return "ssh://" + (user.map { "\($0)@" } ?? "") + shownHost + (port.map { ":\($0)" } ?? "") + (socketPath ?? "")
  }
}
