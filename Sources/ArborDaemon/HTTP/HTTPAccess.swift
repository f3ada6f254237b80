#if HTTP
import Foundation
import HTTPTypes

/// Who an inspector WebSocket is, from its upgrade request: HTTP carries no peer
/// credentials, so the role comes from a token, and the request's `Origin` must be the
/// listener's own (a page of another site must not read the tree through the user's
/// browser).
///
/// A browser presents the token as a WebSocket subprotocol next to `arbor.jsonrpc`
/// (`new WebSocket(url, ["arbor.jsonrpc", "arbor.token." + token])`); a script may send
/// `Authorization: Bearer TOKEN` instead. No token: the `reader` role. The token of
/// `--http-token-file`: `operator`. Any other token, an empty one included, or an
/// `Authorization` header that is not a Bearer token, is refused, not downgraded: the
/// WebSocket opens and closes at once with code 4401 and `wrong token` (a browser sees only
/// the close of a refused upgrade). Why a token file could not be read is logged, never
/// told to the client: its path and the system's error are none of an unauthenticated
/// client's business.
///
/// ```swift
/// let access = HTTPAccess(tokenFile: "/etc/arbor/token")
/// switch access.role(for: request) { case .success(let role): … case .failure(let refusal): … }
/// ```
struct HTTPAccess: Sendable {
  /// The subprotocol the inspector speaks, echoed in the upgrade's reply.
  static let subprotocol = "arbor.jsonrpc"
  static let tokenPrefix = "arbor.token."

  /// Why an upgrade is refused: its status, the message the client reads, and what the
  /// log says besides (never sent to the client).
  struct Refusal: Error, Sendable {
    var status: HTTPResponse.Status
    var message: String
    var logged: String? = nil
  }

  var tokenFile: String?

  /// The role of an upgrade request, or why it has none.
  func role(for request: HTTPRequest) -> Result<Role, Refusal> {
    if let origin = request.headerFields[.origin], !Self.sameOrigin(origin, host: request.authority) {
      // The Origin goes to the log, not into the close's reason (at most 123 bytes).
      return .failure(
        Refusal(
          status: .forbidden, message: "the Origin is not this listener's own; open the inspector from the daemon's address",
          logged: "the Origin \(origin.debugDescription) is not this listener's own"))
    }
    guard let presented = Self.presentedToken(request) else { return .success(.reader) }
    guard let tokenFile else {
      return .failure(Refusal(status: .unauthorized, message: "a token was given but this daemon has no --http-token-file: the inspector is read-only"))
    }
    let expected: String
    do {
      expected = try Self.readToken(tokenFile)
    } catch {
      return .failure(Refusal(status: .unauthorized, message: "wrong token", logged: "the token file cannot be used: \(error.message)"))
    }
    guard Self.constantTimeEqual(Array(presented.utf8), Array(expected.utf8)) else {
      return .failure(Refusal(status: .unauthorized, message: "wrong token"))
    }
    return .success(.operator)
  }

  /// The token from the subprotocols or the `Authorization` header, if there is one. A
  /// credential that is there but empty or of another scheme (`Bearer ` alone, `Basic …`)
  /// is presented as it is (an empty token at worst), so that it is refused: a client that
  /// sent credentials is never served as one that sent none.
  static func presentedToken(_ request: HTTPRequest) -> String? {
    for field in request.headerFields[values: .secWebSocketProtocol] {
      for item in field.split(separator: ",") {
        let name = item.trimmingCharacters(in: .whitespaces)
        if name.hasPrefix(tokenPrefix) { return String(name.dropFirst(tokenPrefix.count)) }
      }
    }
    let authorizations = request.headerFields[values: .authorization]
    guard let authorization = authorizations.first else { return nil }
    // Two Authorization headers, or another scheme than Bearer: no token of this listener.
    guard authorizations.count == 1 else { return "" }
    let parts = authorization.trimmingCharacters(in: .whitespaces).split(separator: " ", maxSplits: 1)
    guard let scheme = parts.first, scheme.lowercased() == "bearer", parts.count == 2 else { return "" }
    return parts[1].trimmingCharacters(in: .whitespaces)
  }

  /// Whether the client asked for `arbor.jsonrpc` among its subprotocols.
  static func asksForSubprotocol(_ request: HTTPRequest) -> Bool {
    request.headerFields[values: .secWebSocketProtocol].contains { field in
      field.split(separator: ",").contains { $0.trimmingCharacters(in: .whitespaces) == subprotocol }
    }
  }

  /// The first line of the token file, without surrounding blanks.
  static func readToken(_ path: String) throws(TokenFileError) -> String {
    let text: String
    do {
      text = try String(contentsOfFile: path, encoding: .utf8)
    } catch {
      throw TokenFileError(message: "\(path) cannot be read: \(error.localizedDescription)")
    }
    let token = text.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false).first.map {
      $0.trimmingCharacters(in: .whitespaces)
    } ?? ""
    guard token.count >= 16 else { throw TokenFileError(message: "\(path) holds no token of at least 16 characters on its first line") }
    guard token.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-_.~".contains($0)) }) else {
      throw TokenFileError(message: "\(path): a token is letters, digits and - _ . ~ only (it travels as a WebSocket subprotocol)")
    }
    return token
  }

  /// `origin` (`http://host:port`) names the same host and port as the request's `Host`.
  static func sameOrigin(_ origin: String, host: String?) -> Bool {
    guard let host else { return false }
    for scheme in ["http://", "https://"] where origin.hasPrefix(scheme) {
      return origin.dropFirst(scheme.count).lowercased() == host.lowercased()
    }
    return false
  }

  /// Compares without stopping at the first difference, so that the time taken says
  /// nothing about how much of a guess was right.
  static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
    var difference = UInt8(a.count == b.count ? 0 : 1)
    for index in 0..<max(a.count, b.count) {
      difference |= (index < a.count ? a[index] : 0) ^ (index < b.count ? b[index] : 0)
    }
    return difference == 0
  }
}

/// The token file cannot be used, and why.
struct TokenFileError: Error, Sendable, CustomStringConvertible {
  var message: String
  var description: String { message }
}
#endif
