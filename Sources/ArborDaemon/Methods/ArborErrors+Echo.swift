import ArborJSON
import ArborRPC

/// How much of a client's input an error reply echoes.
///
/// Errors name what they refuse (a path, a parameter, a method), and that text comes from
/// the request: a 16 MiB path would otherwise come back once in the message and once in
/// `data`. Every string of an error (its message, and each string in its `data`) longer
/// than ``ArborErrors/echoLimit`` bytes is cut in the middle: the first
/// ``ArborErrors/echoHead`` and last ``ArborErrors/echoTail`` bytes stay, joined by
/// `…[N bytes cut]…`, and `data.cut` is `true`. See Docs/Protocol.md, "Errors".
extension ArborErrors {
  /// The longest string, in UTF-8 bytes, that an error carries uncut (1,024).
  static let echoLimit = 1_024
  /// Bytes kept from the start of a cut string.
  static let echoHead = 768
  /// Bytes kept from the end of a cut string.
  static let echoTail = 128

  /// `text`, or its head and tail with the middle cut out when it is longer than
  /// ``echoLimit`` bytes. The cut falls between Unicode scalars.
  ///
  /// ```swift
  /// ArborErrors.echo(String(repeating: "x", count: 5_000))   // 768 x, "…[4104 bytes cut]…", 128 x
  /// ```
  static func echo(_ text: String) -> String {
    cut(text) ?? text
  }

  /// The cut form of `text`, or nil when it is short enough to echo whole.
  static func cut(_ text: String) -> String? {
    let bytes = text.utf8
    guard bytes.count > echoLimit else { return nil }
    var headEnd = bytes.index(bytes.startIndex, offsetBy: echoHead)
    while headEnd.samePosition(in: text.unicodeScalars) == nil { headEnd = bytes.index(before: headEnd) }
    var tailStart = bytes.index(bytes.endIndex, offsetBy: -echoTail)
    while tailStart.samePosition(in: text.unicodeScalars) == nil { tailStart = bytes.index(after: tailStart) }
    let removed = bytes.distance(from: headEnd, to: tailStart)
    return String(text[..<headEnd]) + "…[\(removed) bytes cut]…" + String(text[tailStart...])
  }
}

extension RPCError {
  /// The error with every string longer than ``ArborErrors/echoLimit`` bytes cut in the
  /// middle, and `data.cut: true` when something was; `self` when nothing needed it.
  func cuttingEchoes() -> RPCError {
    var cutSomething = false
    var error = self
    if let message = ArborErrors.cut(message) {
      error.message = message
      cutSomething = true
    }
    if let data, let cutData = Self.cutStrings(in: data) {
      error.data = cutData
      cutSomething = true
    }
    guard cutSomething else { return self }
    switch error.data {
    case nil: error.data = ["cut": true]
    case .object(var members)?:
      members["cut"] = true
      error.data = .object(members)
    default: break
    }
    return error
  }

  /// `value` with its long strings cut, or nil when none was.
  private static func cutStrings(in value: JSONValue) -> JSONValue? {
    switch value {
    case .string(let text):
      return ArborErrors.cut(text).map(JSONValue.string)
    case .array(let items):
      var changed: [JSONValue]?
      for (index, item) in items.enumerated() {
        guard let cut = cutStrings(in: item) else { continue }
        if changed == nil { changed = items }
        changed![index] = cut
      }
      return changed.map(JSONValue.array)
    case .object(let members):
      var changed: [String: JSONValue]?
      for (key, member) in members {
        guard let cut = cutStrings(in: member) else { continue }
        if changed == nil { changed = members }
        changed![key] = cut
      }
      return changed.map(JSONValue.object)
    case .int, .double, .bool, .null:
      return nil
    }
  }
}

extension RPCResponse {
  /// The response with its error's echoes cut (see ``RPCError/cuttingEchoes()``); a
  /// result is left as it is.
  func cuttingEchoes() -> RPCResponse {
    guard case .failure(let error) = outcome else { return self }
    var response = self
    response.outcome = .failure(error.cuttingEchoes())
    return response
  }
}
