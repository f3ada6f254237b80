import FuzzCheck
import Foundation
import HTTPTypes
import NIOCore
import NIOEmbedded
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1

// What a stranger's request head reaches once parsed (NIO's HTTP/1 decoder with the
// listener's limits, then the HTTP types Hummingbird hands on): the daemon's decision on
// it, `WebSocketUpgrade.outcome` (the WebSocket's path, the Host of a loopback listener,
// the Origin, the token, the subprotocol echoed), for a loopback and an open listener, with
// a token file, without one, with one that cannot be read and with one that holds no valid
// token. Routing itself is Hummingbird's; what the router reaches of the daemon's code is
// `LoopbackHostCheck` (`LoopbackHost.matches`, in the http target) and the routes' fixed
// answers.
//
// The input is the bytes of one connection. Properties, for every request read:
// - nothing crashes;
// - only `/rpc`, alone or with a query, is the WebSocket; any other path (`/rpc/`,
//   `//rpc`, `/RPC`, `/%72pc`, `/rpc#x`) goes to the router;
// - a query string changes nothing: `/rpc?…` gets what `/rpc` gets;
// - on a loopback listener, a request without exactly one loopback Host is refused with
//   4421 whatever its Origin and token, and with or without a token file alike (a rebound
//   name learns nothing about the token);
// - an Origin that is not `http://` or `https://` (in lower case) and the Host (in any
//   case) is refused with 4403; a credential (a token subprotocol, any Authorization) is never served as
//   the reader role; the operator role only for the token of a readable token file;
// - a refusal's reason fits a close frame (at most 123 bytes of UTF-8, RFC 6455 §5.5),
//   and neither it nor the log line carries the token file's path, its token or the
//   token presented;
// - the reply's headers are `Sec-WebSocket-Protocol: arbor.jsonrpc` exactly when the
//   client offered it, and nothing else: never a token.

/// The token of the token file (in the dictionary, so that the fuzzer can present it).
private let token = "fuzz-token-0123456789"
private let directory = NSTemporaryDirectory() + "/arbor-fuzz-upgrade-\(getpid())"
private let tokenFile = directory + "/token"
private let missingFile = directory + "/missing-token"
private let shortFile = directory + "/short-token"
private let accesses: [(name: String, access: HTTPAccess, token: String?)] = {
  try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
  _ = FileManager.default.createFile(atPath: tokenFile, contents: Data((token + "\n").utf8))
  _ = FileManager.default.createFile(atPath: shortFile, contents: Data("short\n".utf8))
  return [
    ("a token file", HTTPAccess(tokenFile: tokenFile), token),
    ("no token file", HTTPAccess(tokenFile: nil), nil),
    ("a missing token file", HTTPAccess(tokenFile: missingFile), nil),
    ("a token file without a valid token", HTTPAccess(tokenFile: shortFile), nil),
  ]
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzUpgrade(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  let bytes = inputBytes(data, size)
  let (_, requests) = decodedRequests(bytes)

  for request in requests {
    checkRequest(request, bytes: bytes)
  }
  return 0
}

private func checkRequest(_ request: HTTPRequest, bytes: [UInt8]) {
  let path = request.path ?? ""
  let isWebSocket = path.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first == "/rpc"
  let hosts = request.authority.map { [$0] + request.headerFields[values: HTTPField.Name("host")!] } ?? []
  let loopbackHost = hosts.count == 1 && LoopbackHost.isLoopback(hosts[0])
  let offered = request.headerFields[values: .secWebSocketProtocol].flatMap { $0.split(separator: ",") }
    .map { $0.trimmingCharacters(in: .whitespaces) }
  let presented = offered.filter { $0.hasPrefix("arbor.token.") }.map { String($0.dropFirst("arbor.token.".count)) }
  let authorizations = request.headerFields[values: .authorization]
  let credentials = !presented.isEmpty || !authorizations.isEmpty
  let origin = request.headerFields[.origin]
  let foreignOrigin = origin.map { origin in
    guard let host = request.authority?.lowercased() else { return true }
    // The scheme as browsers send it (lower case), the host and port in any case.
    return !["http://", "https://"].contains { scheme in origin.hasPrefix(scheme) && origin.dropFirst(scheme.count).lowercased() == host }
  } ?? false

  // The same request with a query after /rpc: the query changes nothing.
  var queried = request
  if path == "/rpc" { queried.path = "/rpc?token=" + token }

  for loopbackOnly in [true, false] {
    var onLoopback: [WebSocketUpgrade.Outcome] = []
    for (name, access, validToken) in accesses {
      let outcome = WebSocketUpgrade.outcome(for: request, loopbackOnly: loopbackOnly, access: access)
      let context = "with \(name), \(loopbackOnly ? "on a loopback listener" : "on an open listener"): \(show(bytes))"
      if path == "/rpc" {
        check(
          WebSocketUpgrade.outcome(for: queried, loopbackOnly: loopbackOnly, access: access) == outcome,
          "a query after /rpc changes the outcome (\(outcome)) \(context)")
      }
      guard isWebSocket else {
        check(outcome == .notWebSocket, "the path \(path.debugDescription) is taken for the WebSocket \(context)")
        continue
      }
      switch outcome {
      case .notWebSocket:
        fatalError("the path \(path.debugDescription) goes to the router \(context)")
      case .serve(let role, let headers):
        checkHeaders(headers, offered: offered, context: context)
        check(!loopbackOnly || loopbackHost, "the Hosts \(hosts) are served on a loopback listener \(context)")
        check(!foreignOrigin, "the Origin \(origin.debugDescription) is served for the Host \(request.authority.debugDescription) \(context)")
        switch role {
        case .reader:
          check(!credentials, "a request with credentials (\(presented), \(authorizations)) is served as a reader \(context)")
        case .operator:
          check(validToken != nil, "the operator role without a readable token \(context)")
          let bearer = authorizations.count == 1 && authorizations[0].trimmingCharacters(in: .whitespaces).lowercased().hasPrefix("bearer ")
            && authorizations[0].trimmingCharacters(in: .whitespaces).dropFirst(7).trimmingCharacters(in: .whitespaces) == token
          check(presented.first == token || (presented.isEmpty && bearer), "the operator role for (\(presented), \(authorizations)) \(context)")
        case .admin:
          fatalError("the admin role over HTTP \(context)")
        }
      case .refuse(let closeCode, let reason, let logged, let headers):
        checkHeaders(headers, offered: offered, context: context)
        check(reason.utf8.count <= 123, "a close reason of \(reason.utf8.count) bytes (more than a close frame holds): \(reason.debugDescription) \(context)")
        check((4000...4999).contains(closeCode), "the close code \(closeCode) \(context)")
        if loopbackOnly && !loopbackHost {
          check(closeCode == 4421, "the Hosts \(hosts) on a loopback listener are closed with \(closeCode), not 4421 \(context)")
        } else if foreignOrigin {
          check(closeCode == 4403, "the Origin \(origin.debugDescription) is closed with \(closeCode), not 4403 \(context)")
        } else {
          check(credentials && closeCode == 4401, "a refusal (\(closeCode)) of a request \(credentials ? "with" : "without") credentials \(context)")
        }
        // A secret may show only where the request itself or a fixed message put it.
        let innocent = fixedMessages + (origin ?? "")
        for secret in [token, tokenFile, missingFile, shortFile, directory] + presented.filter({ $0.count >= 12 }) where !innocent.contains(secret) {
          check(!reason.contains(secret), "the close reason \(reason.debugDescription) shows \(secret.debugDescription) \(context)")
        }
        // The log names the token file (an operator's business), never a token.
        for secret in [token] + presented.filter({ $0.count >= 12 }) where !(innocent + tokenFile + missingFile + shortFile).contains(secret) {
          check(!logged.contains(secret), "the log line \(logged.debugDescription) shows the token \(secret.debugDescription) \(context)")
        }
      }
      if loopbackOnly && !loopbackHost { onLoopback.append(outcome) }
    }
    // A rebound name gets the same answer whatever the token file: it learns nothing.
    check(Set(onLoopback.map { "\($0)" }).count <= 1, "a rebound name is answered differently by token file: \(onLoopback): \(show(bytes))")
  }
}

/// The texts of the refusals, which may contain any short word a token could be.
private let fixedMessages = [
  "this listener answers loopback names only", "the Origin is not this listener's own; open the inspector from the daemon's address",
  "a token was given but this daemon has no --http-token-file: the inspector is read-only", "wrong token",
  "the token file cannot be used: ", " cannot be read: ", " holds no token of at least 16 characters on its first line",
].joined(separator: "\n")

/// The upgrade's reply headers: the subprotocol when offered, nothing else.
private func checkHeaders(_ headers: HTTPFields, offered: [String], context: String) {
  let expected: HTTPFields = offered.contains("arbor.jsonrpc") ? [.secWebSocketProtocol: "arbor.jsonrpc"] : [:]
  check(headers == expected, "the reply's headers are \(headers), not \(expected) \(context)")
}

/// The namespace of the decision (the rest of it needs Hummingbird's WebSocket).
enum WebSocketUpgrade {}
