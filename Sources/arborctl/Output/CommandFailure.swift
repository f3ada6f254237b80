import ArborClient
import ArborRPC
import ArgumentParser
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// A failure with the exit code it stands for; printed on standard error.
struct CommandFailure: Error, CustomStringConvertible {
  enum Code: Int32 {
    case daemonError = 1
    case usage = 2
    case cannotConnect = 3
    case timeout = 4
    case permissionDenied = 5
  }

  var code: Code
  var message: String
  /// The daemon's error, to print as JSON with --json.
  var rpcError: RPCError?

  init(_ code: Code, _ message: String, rpcError: RPCError? = nil) {
    self.code = code
    self.message = message
    self.rpcError = rpcError
  }

  init(_ error: ArborClientError) {
    switch error {
    case .daemon(let rpcError):
      let denied = rpcError.is(.permissionDenied)
      self.init(denied ? .permissionDenied : .daemonError, CommandFailure.friendly(rpcError), rpcError: rpcError)
    case .cannotConnect(let path, let reason) where SSHAddress.isSSH(path):
      // The reason is the last line ssh, or the remote arborctl, wrote: a remote socket the
      // remote user may not open is still a permission denied.
      let denied = reason.hasPrefix("arborctl: permission denied")
      self.init(denied ? .permissionDenied : .cannotConnect, "cannot connect to \(path): \(reason)")
    case .cannotConnect(let path, let reason):
      if reason.localizedCaseInsensitiveContains("permission denied") {
        self.init(.permissionDenied, "permission denied on \(path): ask for the daemon's group (the socket is mode 0660)")
      } else {
        self.init(.cannotConnect, Self.cannotConnect(to: path))
      }
    case .connectionClosed:
      self.init(.cannotConnect, "the daemon closed the connection")
    case .transportEnded(let address, let reason):
      self.init(.cannotConnect, "the connection to \(address) ended: \(reason)")
    case .malformedReply, .watchClosed, .patchFailed, .unencodableParams:
      self.init(.daemonError, error.description)
    }
  }

  /// Why nothing answers at `path`, said from what is there, and what to do.
  static func cannotConnect(to path: String) -> String {
    let daemon = daemonName(of: path)
    let start = "Start \(daemon.map { "`\($0)`" } ?? "the daemon")\(daemon == "counterfactd" ? " (in Arbor's checkout: `make run`)" : ""), or pass its socket with --socket or $ARBOR_SOCKET."
    var info = stat()
    guard lstat(path, &info) == 0 else {
      return "cannot connect to \(path): there is no such file. Is \(daemon ?? "the daemon") running? \(start)"
    }
    switch info.st_mode & S_IFMT {
    case S_IFDIR:
      let sockets = ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).filter { $0.hasSuffix(".sock") }.sorted()
      let inside = sockets.isEmpty ? "" : " (it holds \(sockets.map { path + "/" + $0 }.joined(separator: ", ")))"
      return "cannot connect to \(path): it is a directory, not a socket\(inside). Pass the socket file itself with --socket."
    case S_IFSOCK:
      return "cannot connect to \(path): nothing listens on it (a socket left by a daemon that stopped). \(start)"
    default:
      return "cannot connect to \(path): it is not a socket. Pass the daemon's socket with --socket or $ARBOR_SOCKET."
    }
  }

  /// The daemon a socket belongs to, from its name (`todosd.sock` is `todosd`'s: the
  /// daemons name their sockets after themselves); nil for a name that says nothing.
  static func daemonName(of path: String) -> String? {
    let file = (path as NSString).lastPathComponent
    guard file.hasSuffix(".sock") else { return nil }
    let name = String(file.dropLast(5))
    guard name.count > 1, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" || $0 == "." }) else { return nil }
    return name
  }

  /// The daemon's message as a person reads it: without JSON-RPC's own words for the
  /// kind of error ("Invalid params:", "Method not found:"), which the exit code and
  /// `--json` already carry.
  static func friendly(_ error: RPCError) -> String {
    var text = error.message
    for prefix in ["Invalid params: ", "Method not found: ", "Invalid Request: ", "Internal error: "] where text.hasPrefix(prefix) {
      text.removeFirst(prefix.count)
      if prefix == "Method not found: " { text = "no method \(text)" }
    }
    return text
  }

  var description: String { message }
  var exitCode: ExitCode { ExitCode(code.rawValue) }
}
