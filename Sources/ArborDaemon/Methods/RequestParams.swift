import Arbor
import ArborJSON
import ArborRPC

/// A method's parameters as they arrived, read by name into the method's `Params` type
/// (`ArborRPC`) with errors that name the parameter and the type it should have.
///
/// The errors are `ArborRPC`'s (`RPCError.wrongParameterType` and the rest): each says
/// what the parameter should be in words (`a revision (an integer ≥ 0)`), which a
/// `DecodingError` cannot.
struct RequestParams {
  let method: String
  let members: [String: JSONValue]

  /// Parameters must be an object (or absent); names outside `accepted` are refused.
  init(_ request: RPCRequest, accepted: [String]) throws(RPCError) {
    method = request.method
    switch request.params {
    case nil: members = [:]
    case .object(let object)?: members = object
    case let other?: throw .paramsNotAnObject(method: request.method, found: other.typeName, accepted: accepted)
    }
    // Checked without allocating; sorted only to name the same parameter every time.
    if members.keys.contains(where: { !accepted.contains($0) }), let unknown = members.keys.sorted().first(where: { !accepted.contains($0) }) {
      throw .unknownParameter(method: method, parameter: unknown, accepted: accepted)
    }
  }

  func wrongType(_ key: String, expected: String, found: JSONValue) -> RPCError {
    .wrongParameterType(method: method, parameter: key, expected: expected, found: found.typeName)
  }

  func missing(_ key: String, expected: String) -> RPCError {
    .missingParameter(method: method, parameter: key, expected: expected)
  }

  static let revisionExpected = "a revision (an integer ≥ 0)"

  func string(_ key: String) throws(RPCError) -> String? {
    switch members.member(key) {
    case nil, .null?: return nil
    case .string(let text)?: return text
    case let other?: throw wrongType(key, expected: "a string", found: other)
    }
  }

  func requiredString(_ key: String) throws(RPCError) -> String {
    guard let text = try string(key) else { throw missing(key, expected: "a string") }
    return text
  }

  func revision(_ key: String) throws(RPCError) -> UInt64? {
    switch members.member(key) {
    case nil, .null?: return nil
    case .int(let number)? where number >= 0: return UInt64(number)
    case let other?: throw wrongType(key, expected: Self.revisionExpected, found: other)
    }
  }

  func integer(_ key: String) throws(RPCError) -> Int? {
    switch members.member(key) {
    case nil, .null?: return nil
    case .int(let number)?: return Int(number)
    case let other?: throw wrongType(key, expected: "an integer", found: other)
    }
  }

  /// The JSON Pointer a `path` parameter spells (already read as `text`); the root when nil.
  func pointer(_ text: String?, _ key: String = "path") throws(RPCError) -> JSONPointer {
    guard let text else { return .root }
    do {
      return try JSONPointer(text)
    } catch {
      throw .notAPointer(method: method, parameter: key, reason: "\(error)")
    }
  }

  func strings(_ key: String) throws(RPCError) -> [String]? {
    switch members.member(key) {
    case nil, .null?: return nil
    case .array(let items)?:
      var texts: [String] = []
      for item in items {
        guard case .string(let text) = item else { throw wrongType(key, expected: "an array of strings", found: item) }
        texts.append(text)
      }
      return texts
    case let other?: throw wrongType(key, expected: "an array of strings", found: other)
    }
  }
}

/// A method's `Params` type read from a request's ``RequestParams``, in the order its checks run
/// (the first wrong parameter is the one the error names).
protocol ReadableParams {
  init(_ params: RequestParams) throws(RPCError)
}

extension NoParams: ReadableParams {
  init(_ params: RequestParams) throws(RPCError) { self.init() }
}

extension DaemonUpgradeMethod.Params: ReadableParams {
  init(_ params: RequestParams) throws(RPCError) { self.init(binary: try params.string("binary")) }
}

extension StateGet.Params: ReadableParams {
  init(_ params: RequestParams) throws(RPCError) {
    self.init(path: try params.string("path"))
    _ = try params.pointer(path)
  }
}

extension StateAt.Params: ReadableParams {
  init(_ params: RequestParams) throws(RPCError) {
    guard let revision = try params.revision("revision") else { throw params.missing("revision", expected: RequestParams.revisionExpected) }
    self.init(revision: revision, path: try params.string("path"))
    _ = try params.pointer(path)
  }
}

extension StateWatchMethod.Params: ReadableParams {
  init(_ params: RequestParams) throws(RPCError) {
    let since = try params.revision("since")
    self.init(path: try params.string("path"), since: since)
    _ = try params.pointer(path)
  }
}

extension EventsWatch.Params: ReadableParams {
  init(_ params: RequestParams) throws(RPCError) {
    let path = try params.string("path")
    _ = try params.pointer(path)
    self.init(path: path, types: try params.strings("types"))
  }
}

extension WatchCancel.Params: ReadableParams {
  init(_ params: RequestParams) throws(RPCError) {
    guard let subscription = try params.integer("subscription") else {
      throw params.missing("subscription", expected: "the number a watch replied with")
    }
    self.init(subscription: subscription)
  }
}

extension HistoryChanges.Params: ReadableParams {
  init(_ params: RequestParams) throws(RPCError) {
    self.init(since: try params.revision("since"), limit: try params.integer("limit"))
    if let limit, !(1...HistoryChanges.maxLimit).contains(limit) {
      throw .outOfRange(method: params.method, parameter: "limit", value: limit, range: 1...HistoryChanges.maxLimit)
    }
  }
}

extension IntentCall.Params: ReadableParams {
  init(_ params: RequestParams) throws(RPCError) {
    let intent = try params.requiredString("intent")
    let expectedTarget = #"a JSON Pointer or {"id": "<16 hexadecimal digits>"}"#
    let target: IntentCall.Target?
    switch params.members.member("target") {
    case nil, .null?:
      target = nil
    case .string(let path)?:
      target = .path(path)
    case .object(let members)? where members.count == 1:
      guard case .string(let text)? = members.member("id"), ModelID(text) != nil else {
        throw params.wrongType("target", expected: expectedTarget, found: .object(members))
      }
      target = .id(text)
    case let other?:
      throw params.wrongType("target", expected: expectedTarget, found: other)
    }
    let arguments: [String: JSONValue]?
    switch params.members.member("params") {
    case nil, .null?: arguments = nil
    case .object(let members)?: arguments = members
    case let other?: throw params.wrongType("params", expected: "an object of the intent's parameters by name", found: other)
    }
    var wait: IntentCall.Wait?
    if let text = try params.string("wait") {
      guard let known = IntentCall.Wait(rawValue: text) else { throw .unknownWait(text) }
      wait = known
    }
    self.init(target: target, intent: intent, params: arguments, wait: wait)
  }
}
