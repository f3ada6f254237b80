import ArborJSON
import ArborRPC

// What the daemon does with the bytes a client sends: NDJSON framing (`LineFramer`), each
// line read into calls (`RPCInbound(line:)`, whose fast path skips the envelope's
// dictionary), each call's `params` decoded into its method's typed `Params`; and what a
// client does with a reply (`RPCResponse`, each method's `Result`).
//
// The input: byte 0 sets the line limit, byte 1 seeds the chunking, the rest is the stream.
//
// Properties:
// - the framer gives the same lines (and the same "too long" error) however the stream
//   is cut into chunks, as a plain split on `\n` does;
// - a line reads exactly as the general path reads its parsed value;
// - every error reply is one line of valid JSON-RPC;
// - a typed value decoded from a request encodes and decodes back to itself; an intent's
//   result is written by its hand-written writer as the encoder writes it.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRequest(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  let bytes = inputBytes(data, size)
  guard bytes.count >= 2 else { return 0 }
  let limit = bytes[0] < 128 ? 1 << 20 : Int(bytes[0] - 128) + 1
  let stream = Array(bytes[2...])
  let expected = referenceLines(stream, limit: limit)
  let framed = frame(stream, limit: limit, seed: bytes[1])
  check(
    framed.lines == expected.lines && framed.tooLong == expected.tooLong,
    "the framer (limit \(limit), seed \(bytes[1])) gave \(framed.lines.count) lines\(framed.tooLong ? " then too long" : ""), "
      + "the split \(expected.lines.count)\(expected.tooLong ? " then too long" : ""): \(show(stream))")

  for line in stream.split(separator: 0x0A, omittingEmptySubsequences: false).prefix(16) {
    readLine(Array(line))
  }
  return 0
}

// MARK: - Framing

/// The lines a plain split gives: each without its `\n` and one `\r` before it, up to the
/// first line longer than `limit` (an unfinished last line counts without a final `\r`,
/// which may yet be followed by its `\n`).
private func referenceLines(_ stream: [UInt8], limit: Int) -> (lines: [[UInt8]], tooLong: Bool) {
  var pieces = stream.split(separator: 0x0A, omittingEmptySubsequences: false).map(Array.init)
  let unfinished = pieces.removeLast()
  var lines: [[UInt8]] = []
  for var piece in pieces {
    if piece.last == 0x0D { piece.removeLast() }
    if piece.count > limit { return (lines, true) }
    lines.append(piece)
  }
  let pending = unfinished.last == 0x0D ? unfinished.count - 1 : unfinished.count
  return (lines, pending > limit)
}

/// A small generator of chunk sizes and choices, from the seed byte.
private struct Chooser {
  var state: UInt64
  init(seed: UInt8) { state = 0x9E37_79B9_7F4A_7C15 &* (UInt64(seed) &+ 1) }
  mutating func next() -> UInt64 {
    state ^= state << 13
    state ^= state >> 7
    state ^= state << 17
    return state
  }
}

private func frame(_ stream: [UInt8], limit: Int, seed: UInt8) -> (lines: [[UInt8]], tooLong: Bool) {
  var chooser = Chooser(seed: seed)
  var framer = LineFramer(maxLineLength: limit)
  var lines: [[UInt8]] = []
  var offset = 0
  repeat {
    let size = Int(chooser.next() % 40)
    let chunk = stream[offset..<min(stream.count, offset + size)]
    offset += chunk.count
    if chooser.next() & 1 == 0 {
      framer.append(chunk)
    } else {
      Array(chunk).withUnsafeBytes { framer.append(bytes: $0) }
    }
    do {
      while true {
        if chooser.next() & 1 == 0 {
          guard let line = try framer.nextLine() else { break }
          lines.append(Array(line))
        } else {
          guard let line = try framer.takeLine() else { break }
          lines.append(line)
        }
      }
    } catch {
      return (lines, true)
    }
    check(framer.pendingCount <= framer.capacity, "pending \(framer.pendingCount) beyond capacity \(framer.capacity)")
  } while offset < stream.count
  return (lines, false)
}

// MARK: - Lines and calls

/// What the general path makes of a line: parse, then sort into calls (a fractional id
/// keeps its text through the line reader's own fix-up, applied alike).
private func generalRead(_ line: [UInt8]) -> RPCInbound {
  do {
    let inbound = RPCInbound(try JSONValue(parsing: line))
    switch inbound {
    case .single(let call) where call.hasFractionalID: return RPCInbound(line: line)
    case .batch(let calls) where calls.contains(where: \.hasFractionalID): return RPCInbound(line: line)
    default: return inbound
    }
  } catch {
    return .single(.invalid(RPCResponse(id: .null, error: .parseError(error.description))))
  }
}

extension RPCInbound.Call {
  fileprivate var hasFractionalID: Bool {
    switch self {
    case .request(let request): if case .fractional? = request.id { return true }
    case .invalid(let reply): if case .fractional = reply.id { return true }
    }
    return false
  }
}

private func readLine(_ line: [UInt8]) {
  let inbound = RPCInbound(line: line)
  check(inbound == generalRead(line), "the line reader and the general path disagree on \(show(line))")
  check(RPCInbound(line: line[...]) == inbound, "the generic line reader disagrees on \(show(line))")
  let calls: [RPCInbound.Call]
  switch inbound {
  case .single(let call): calls = [call]
  case .batch(let members):
    check(!members.isEmpty, "an empty batch: \(show(line))")
    calls = members
  }
  var replies: [RPCResponse] = []
  for call in calls {
    switch call {
    case .invalid(let reply):
      checkReplyLine(reply.jsonLine, of: line)
      replies.append(reply)
    case .request(let request):
      let written = canonical(request.json)
      guard case .single(.request(let back))? = (try? JSONValue(parsing: written)).map({ RPCInbound($0) }) else {
        fatalError("the request \(show(written)) read from \(show(line)) does not read back as a request")
      }
      check(
        back.method == request.method && back.params.map(canonical) == request.params.map(canonical)
          && back.id.map { canonical($0.json) } == request.id.map { canonical($0.json) },
        "the request \(show(written)) read from \(show(line)) reads back otherwise")
      readParams(request)
    }
  }
  if !replies.isEmpty {
    let batch = RPCResponse.batchLine(replies)
    check((try? JSONValue(parsing: batch.dropLast()))?.arrayValue?.count == replies.count, "a batch reply is not an array of its replies: \(show(batch))")
  }
  // A client reads the same line as a reply.
  if let value = try? JSONValue(parsing: line), let reply = RPCResponse(value) {
    checkReplyLine(reply.jsonLine, of: line)
    if let result = reply.result {
      for method in ArborMethod.allCases { readResult(method.definition, result) }
    }
  }
}

private func checkReplyLine(_ reply: [UInt8], of line: [UInt8]) {
  check(reply.last == 0x0A && reply.dropLast().firstIndex(of: 0x0A) == nil, "a reply is not one line: \(show(reply)) for \(show(line))")
  guard let value = try? JSONValue(parsing: reply.dropLast()) else {
    fatalError("the reply \(show(reply)) to \(show(line)) is not JSON")
  }
  check(RPCResponse(value) != nil, "the reply \(show(reply)) to \(show(line)) is not a JSON-RPC response")
}

// MARK: - Typed parameters and results

private func readParams(_ request: RPCRequest) {
  let params = request.params ?? .object([:])
  for method in ArborMethod.allCases { readTyped(method.definition.paramsType, params) }
  for notification in ArborNotification.allCases {
    _ = try? notification.definition.params(of: RPCRequest(method: notification.rawValue, params: request.params, id: nil))
    readTyped(notification.definition.paramsType, params)
  }
}

extension ArborMethodDefinition {
  fileprivate static var paramsType: Params.Type { Params.self }
}

extension ArborNotificationDefinition {
  fileprivate static var paramsType: Params.Type { Params.self }
}

private func readResult<Definition: ArborMethodDefinition>(_ definition: Definition.Type, _ value: JSONValue) {
  guard let result = readTyped(Definition.Result.self, value) else { return }
  if let intent = result as? IntentCall.Result {
    var written: [UInt8] = []
    intent.writeJSON(to: &written)
    let direct = canonical(intent.jsonValue)
    check((try? JSONValue(parsing: written)).map(canonical) == direct, "IntentCall.Result.writeJSON wrote \(show(written)), jsonValue \(show(direct))")
    // The encoder refuses a revision beyond Int64; any other result it writes alike.
    if let encoded = try? JSONValueEncoder().encode(intent) {
      check(canonical(encoded) == direct, "IntentCall.Result.jsonValue \(show(direct)) differs from its encoding \(show(canonical(encoded)))")
    }
  }
}

/// Decodes a `T`; when it decodes, it must encode, and decode from that to itself. An
/// unsigned number beyond `Int64` (a revision of 1e19) decodes, as `JSONDecoder` decodes it,
/// but the encoder refuses it, by design: that refusal is an error, never a trap.
@discardableResult
private func readTyped<T: Codable & Hashable>(_ type: T.Type, _ value: JSONValue) -> T? {
  guard let decoded = try? JSONValueDecoder().decode(T.self, from: value) else { return nil }
  let encoded: JSONValue
  do {
    encoded = try JSONValueEncoder().encode(decoded)
  } catch EncodingError.invalidValue(_, let context) where context.debugDescription.contains("outside Int64's range") {
    return decoded
  } catch {
    fatalError("\(T.self) read from \(show(canonical(value))) does not encode: \(error)")
  }
  let again = try? JSONValueDecoder().decode(T.self, from: encoded)
  check(again == decoded, "\(T.self) read from \(show(canonical(value))) encodes as \(show(canonical(encoded))), which reads otherwise")
  return decoded
}
