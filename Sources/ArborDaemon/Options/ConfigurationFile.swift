import Foundation

/// The settings file of `--config`: `key = value` lines with the long option names, read
/// at start and again on SIGHUP. Only what can change while the daemon runs is there:
/// roles, limits and the log level; the socket, state directory, fsync policy and history
/// stay as the daemon started. The HTTP listener's settings (`http`, `http-allow-remote`,
/// `http-token-file`) are read at start; a reload that changes `http` or
/// `http-allow-remote` is told they take effect at the next start. The token file itself
/// is read at every connection. `store` (a PostgreSQL address) is read at start too.
///
/// ```ini
/// # /etc/arbor/counterfactd.conf
/// operators = group:arbor
/// max-connections = 256
/// log-level = notice
/// ```
public struct ConfigurationFile: Sendable {
  public let path: String

  public init(path: String) { self.path = path }

  /// The settings a file may hold.
  public static let keys = [
    "readers", "operators", "admins", "max-connections", "max-in-flight", "watch-queue", "max-line-bytes",
    "max-output-bytes", "log-level", "http", "http-allow-remote", "http-token-file",
    "store",
  ]

  /// `options` with the file's settings applied over them; throws with the file, the line
  /// and what is wrong.
  public func apply(to options: DaemonOptions) throws(ConfigurationError) -> DaemonOptions {
    let text: String
    do {
      text = try String(contentsOfFile: path, encoding: .utf8)
    } catch {
      throw ConfigurationError(path: path, line: nil, "cannot be read: \(error.localizedDescription)")
    }
    var options = options
    for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
      let line = index + 1
      let content = raw.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
      let trimmed = content.trimmingCharacters(in: .whitespaces)
      guard !trimmed.isEmpty else { continue }
      let parts = trimmed.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
      guard parts.count == 2 else { throw ConfigurationError(path: path, line: line, "expected 'key = value', found '\(trimmed)'") }
      let key = parts[0].trimmingCharacters(in: .whitespaces)
      let value = parts[1].trimmingCharacters(in: .whitespaces)
      func count() throws(ConfigurationError) -> Int {
        guard let number = Int(value), number > 0 else {
          throw ConfigurationError(path: path, line: line, "\(key) must be a positive integer, not '\(value)'")
        }
        return number
      }
      func principals() throws(ConfigurationError) -> PrincipalList {
        do {
          return try PrincipalList(parsing: value)
        } catch {
          throw ConfigurationError(path: path, line: line, "\(key): \(error)")
        }
      }
      switch key {
      case "readers": options.readers = try principals()
      case "operators": options.operators = try principals()
      case "admins": options.admins = try principals()
      case "max-connections": options.maxConnections = try count()
      case "max-in-flight": options.maxInFlight = try count()
      case "watch-queue": options.watchQueue = try count()
      case "max-line-bytes": options.maxLineBytes = try count()
      case "max-output-bytes": options.maxOutputBytes = try count()
      case "log-level":
        guard LogLevelName.all.contains(value) else {
          throw ConfigurationError(path: path, line: line, "log-level must be one of \(LogLevelName.all.joined(separator: ", ")), not '\(value)'")
        }
        options.logLevel = value
      case "http":
        guard let address = HTTPAddress(argument: value) else {
          throw ConfigurationError(path: path, line: line, "http must be HOST:PORT (such as 127.0.0.1:9090), not '\(value)'")
        }
        options.http = address
      case "http-allow-remote":
        guard value == "true" || value == "false" else {
          throw ConfigurationError(path: path, line: line, "http-allow-remote must be true or false, not '\(value)'")
        }
        options.httpAllowRemote = value == "true"
      case "http-token-file": options.httpTokenFile = value
      case "store": options.store = value
      default:
        throw ConfigurationError(path: path, line: line, "unknown setting '\(key)' (known: \(Self.keys.joined(separator: ", ")))")
      }
    }
    return options
  }
}

/// What is wrong with a settings file, and where.
public struct ConfigurationError: Error, Sendable, CustomStringConvertible {
  public var path: String
  public var line: Int?
  public var message: String

  init(path: String, line: Int?, _ message: String) {
    self.path = path
    self.line = line
    self.message = message
  }

  public var description: String { line.map { "\(path):\($0): \(message)" } ?? "\(path): \(message)" }
}

/// The log levels by name, as `--log-level` and the settings file spell them.
enum LogLevelName {
  static let all = ["trace", "debug", "info", "notice", "warning", "error", "critical"]
}
