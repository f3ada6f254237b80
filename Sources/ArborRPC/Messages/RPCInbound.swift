import ArborJSON

/// What a server read from one line: a single call or a batch, each member either a
/// request to run or the error reply that a malformed member gets.
///
/// ```swift
/// switch RPCInbound(line: Array(#"{"jsonrpc":"2.0","method":"daemon.status","id":1}"#.utf8)) {
/// case .single(.request(let request)): print(request.method)
/// case .single(.invalid(let reply)): print(reply.json.jsonString)
/// case .batch(let calls): print(calls.count)
/// }
/// ```
public enum RPCInbound: Sendable, Hashable {
  /// One member of what was read.
  public enum Call: Sendable, Hashable {
    case request(RPCRequest)
    /// Not a valid request: the reply to send, whatever else happens.
    case invalid(RPCResponse)
  }

  case single(Call)
  /// A non-empty batch, in the order sent. An empty batch is a single invalid call.
  case batch([Call])

  /// Reads one line (without its newline). Invalid JSON or UTF-8 gives a parse error with
  /// a `null` id; an empty array gives one Invalid Request.
  public init<Bytes: Collection<UInt8>>(line: Bytes, maxDepth: Int = 512) {
    self.init(line: Array(line), maxDepth: maxDepth)
  }

  /// Reads one line held in an array: what the daemon reads, parsed without going
  /// through the generic collection's witnesses.
  public init(line: [UInt8], maxDepth: Int = 512) {
    if let request = RPCRequest(validRequestLine: line, maxDepth: maxDepth) {
      self = .single(.request(request))
      return
    }
    let value: JSONValue
    do {
      value = try JSONValue(parsing: line, maxDepth: maxDepth)
    } catch {
      self = .single(.invalid(RPCResponse(id: .null, error: .parseError(error.description))))
      return
    }
    self.init(value)
    // An id that `Int64` cannot hold was parsed as a `Double`: its digits come from the line.
    if hasFractionalID {
      let texts = JSONValue.numberTexts(ofMember: "id", in: line, maxDepth: maxDepth)
      switch self {
      case .single(let call): self = .single(call.exactID(texts.first ?? nil))
      case .batch(let calls):
        self = .batch(calls.enumerated().map { index, call in call.exactID(index < texts.count ? texts[index] : nil) })
      }
    }
  }

  private var hasFractionalID: Bool {
    switch self {
    case .single(let call): return call.hasFractionalID
    case .batch(let calls): return calls.contains(where: \.hasFractionalID)
    }
  }

  /// Sorts an already parsed message into calls.
  public init(_ value: JSONValue) {
    switch value {
    case .array(let members) where members.isEmpty:
      self = .single(.invalid(RPCResponse(id: .null, error: .invalidRequest("an empty batch"))))
    case .array(let members):
      self = .batch(members.map(Call.init))
    default:
      self = .single(Call(value))
    }
  }
}

extension RPCInbound.Call {
  var hasFractionalID: Bool {
    switch self {
    case .request(let request): if case .fractional? = request.id { return true }
    case .invalid(let reply): if case .fractional = reply.id { return true }
    }
    return false
  }

  /// The call with its fractional id replaced by the id's text as written.
  func exactID(_ text: String?) -> Self {
    guard let text else { return self }
    switch self {
    case .request(var request):
      guard case .fractional? = request.id else { return self }
      request.id = .numberText(text)
      return .request(request)
    case .invalid(var reply):
      guard case .fractional = reply.id else { return self }
      reply.id = .numberText(text)
      return .invalid(reply)
    }
  }

  init(_ value: JSONValue) {
    do {
      self = .request(try RPCRequest(validating: value))
    } catch {
      self = .invalid(error)
    }
  }
}
