import FuzzCheck
import Foundation
import HTTPTypes
import NIOCore
import NIOEmbedded
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1

// What the HTTP listener does with a request's head: NIO's HTTP/1 decoder (llhttp, with the
// listener's limits), the conversion to HTTP types Hummingbird puts after it
// (`HTTP1ToHTTPServerCodec`), then the daemon's checks: `LoopbackHost` (the Host of a
// loopback listener), and `HTTPAccess` (the Origin, the token, the role of an inspector
// WebSocket).
//
// The input is the bytes of one connection. Properties:
// - nothing crashes;
// - `LoopbackHost.isLoopback` accepts exactly what the plain reference below accepts (a
//   full dotted quad in 127/8 without leading zeros, `localhost` in any case, exactly
//   `[::1]`, each with an optional port of 1 to 65535), for every Host the decoder reads
//   and for the input itself taken as a host;
// - a request whose head has no Host, or two, is refused by `LoopbackHost.matches`; one
//   with one Host is accepted exactly when the reference accepts that Host;
// - the converted request's authority is the head's first Host;
// - `HTTPAccess` gives the reader role only to a request that presents no credential (no
//   `Authorization`, no `arbor.token.` subprotocol), the operator role only to one that
//   presents the token of its token file, and neither when an Origin is not `http://` or
//   `https://` followed by the Host.

/// The token of the token file this target uses (in the dictionary, so that the fuzzer
/// can present it).
private let token = "fuzz-token-0123456789"
private let tokenFile: String = {
  let path = NSTemporaryDirectory() + "/arbor-fuzz-http-token-\(getpid())"
  _ = FileManager.default.createFile(atPath: path, contents: Data((token + "\n").utf8))
  return path
}()
private let withToken = HTTPAccess(tokenFile: tokenFile)
private let withoutToken = HTTPAccess(tokenFile: nil)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHTTP(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  let bytes = inputBytes(data, size)
  if bytes.count <= 80, let text = String(validating: bytes, as: UTF8.self) { checkHost(text) }

  let (heads, requests) = decodedRequests(bytes)

  check(requests.count <= heads.count, "\(requests.count) requests from \(heads.count) heads: \(show(bytes))")
  for (head, request) in zip(heads, requests) {
    checkRequest(head: head, request: request, bytes: bytes)
  }
  return 0
}

private func checkRequest(head: HTTPRequestHead, request: HTTPRequest, bytes: [UInt8]) {
  // Without the blanks around them, which a field's value does not include (RFC 9110
  // 5.5); NIO's decoder keeps trailing ones, the HTTP types drop them.
  let hosts = head.headers["Host"].map { $0.trimmingCharacters(in: CharacterSet(charactersIn: " \t")) }
  for host in hosts { checkHost(host) }
  check(request.authority == hosts.first, "the authority is \(request.authority.debugDescription), the first Host \(hosts.first.debugDescription): \(show(bytes))")
  let matches = LoopbackHost.matches(request)
  check(
    matches == (hosts.count == 1 && referenceIsLoopback(hosts[0])),
    "LoopbackHost.matches is \(matches) for the Hosts \(hosts): \(show(bytes))")

  // Credentials as the head carries them.
  let subprotocolTokens = head.headers["Sec-WebSocket-Protocol"].flatMap { $0.split(separator: ",") }
    .map { $0.trimmingCharacters(in: .whitespaces) }.filter { $0.hasPrefix("arbor.token.") }
  let authorizations = head.headers["Authorization"]
  let presents = !subprotocolTokens.isEmpty || !authorizations.isEmpty
  let origins = head.headers["Origin"]
  for access in [withToken, withoutToken] {
    guard case .success(let role) = access.role(for: request) else { continue }
    if let origin = request.headerFields[.origin] {
      let host = request.authority?.lowercased()
      check(
        host != nil && (origin.lowercased() == "http://" + host! || origin.lowercased() == "https://" + host!),
        "the Origin \(origin.debugDescription) was accepted for the Host \(request.authority.debugDescription): \(show(bytes))")
    } else {
      check(origins.isEmpty, "the Origins \(origins) were not seen: \(show(bytes))")
    }
    switch role {
    case .reader:
      check(!presents, "a request with credentials (\(subprotocolTokens), \(authorizations)) was served as a reader: \(show(bytes))")
    case .operator:
      check(access.tokenFile != nil, "the operator role without a token file: \(show(bytes))")
      let bearer = authorizations.count == 1 && authorizations[0].trimmingCharacters(in: .whitespaces).lowercased().hasPrefix("bearer ")
        && authorizations[0].trimmingCharacters(in: .whitespaces).dropFirst(7).trimmingCharacters(in: .whitespaces) == token
      check(
        subprotocolTokens.first == "arbor.token." + token || (subprotocolTokens.isEmpty && bearer),
        "the operator role for (\(subprotocolTokens), \(authorizations)): \(show(bytes))")
    case .admin:
      fatalError("the admin role over HTTP: \(show(bytes))")
    }
  }
}

/// `LoopbackHost.isLoopback` against the reference.
private func checkHost(_ host: String) {
  let accepted = LoopbackHost.isLoopback(host)
  check(accepted == referenceIsLoopback(host), "LoopbackHost.isLoopback is \(accepted) for \(host.debugDescription)")
}

// MARK: - A plain reference of loopback hosts, on bytes

private func referenceIsLoopback(_ authority: String) -> Bool {
  let bytes = Array(authority.utf8)
  guard !bytes.isEmpty, bytes.count <= 64 else { return false }
  let colon = UInt8(ascii: ":")
  let host: ArraySlice<UInt8>
  var port: ArraySlice<UInt8>? = nil
  if bytes.first == UInt8(ascii: "[") {
    guard bytes.starts(with: Array("[::1]".utf8)) else { return false }
    host = bytes[..<5]
    if bytes.count > 5 {
      guard bytes[5] == colon else { return false }
      port = bytes[6...]
    }
  } else if let index = bytes.firstIndex(of: colon) {
    host = bytes[..<index]
    port = bytes[(index + 1)...]
  } else {
    host = bytes[...]
  }
  let lowered = host.map { (0x41...0x5A).contains($0) ? $0 | 0x20 : $0 }
  guard lowered == Array("[::1]".utf8) || lowered == Array("localhost".utf8) || referenceIsLoopbackQuad(host) else { return false }
  guard let port else { return true }
  return referenceNumber(port, digits: 1...5, range: 1...65535)
}

private func referenceIsLoopbackQuad(_ host: ArraySlice<UInt8>) -> Bool {
  let parts = host.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
  return parts.count == 4 && Array(parts[0]) == Array("127".utf8) && parts.allSatisfy {
    referenceNumber($0, digits: 1...3, range: 0...255) && ($0.count == 1 || $0.first != UInt8(ascii: "0"))
  }
}

private func referenceNumber(_ text: ArraySlice<UInt8>, digits: ClosedRange<Int>, range: ClosedRange<Int>) -> Bool {
  guard digits.contains(text.count), text.allSatisfy({ (0x30...0x39).contains($0) }) else { return false }
  return range.contains(text.reduce(0) { $0 * 10 + Int($1 - 0x30) })
}
