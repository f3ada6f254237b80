import ArborJSON

/// `intent.call {target?, intent, params?, wait?}`: calls an `@Intent` of a model.
///
/// ```swift
/// let reply = try await client.call(IntentCall.self, .init(target: "/counters/0/counter", intent: "incrementTapped"))
/// print(reply.revision, reply.result)   // 3 null
/// ```
public enum IntentCall: ArborMethodDefinition {
  public static var method: ArborMethod { .intentCall }
  public static var summary: String {
    "Calls an intent of the model at a path or with an id; replies once its synchronous part has committed (or, with wait: settled, once the work it started has ended)."
  }
  public static var parameterNotes: [String: String] {
    [
      "target": "the model: a JSON Pointer (the root when absent) or {\"id\": \"<16 hexadecimal digits>\"}",
      "params": "the intent's arguments by label",
      "wait": "committed (the default) or settled",
    ]
  }

  /// Which intent of which model, with which arguments.
  ///
  /// ```swift
  /// let params = IntentCall.Params(target: .id("72c769dae94f5355"), intent: "removeButtonTapped", wait: .settled)
  /// ```
  public struct Params: Codable, Sendable, Hashable {
    /// The model; the root when nil.
    public var target: Target?
    public var intent: String
    /// The intent's arguments by label.
    public var params: [String: JSONValue]?
    /// When to reply; `committed` when nil.
    public var wait: Wait?

    /// A call of `intent` on the model at `target`.
    ///
    /// ```swift
    /// let params = IntentCall.Params(target: "/counters/0/counter", intent: "incrementTapped")
    /// ```
    public init(target: Target? = nil, intent: String, params: [String: JSONValue]? = nil, wait: Wait? = nil) {
      self.target = target
      self.intent = intent
      self.params = params
      self.wait = wait
    }
  }

  /// The model an intent is called on: a path, or a model's id.
  ///
  /// ```swift
  /// let byPath: IntentCall.Target = "/counters/0/counter"
  /// let byID = IntentCall.Target.id("72c769dae94f5355")
  /// ```
  public enum Target: Codable, Sendable, Hashable, ExpressibleByStringLiteral, JSONSchemaDescribing {
    /// A JSON Pointer (`""` is the root).
    case path(String)
    /// A model's id, 16 hexadecimal digits: `{"id": "…"}` on the wire.
    case id(String)

    public init(stringLiteral value: String) { self = .path(value) }

    private enum CodingKeys: String, CodingKey { case id }

    public init(from decoder: any Decoder) throws {
      if let container = try? decoder.container(keyedBy: CodingKeys.self) {
        self = .id(try container.decode(String.self, forKey: .id))
      } else {
        self = .path(try decoder.singleValueContainer().decode(String.self))
      }
    }

    public func encode(to encoder: any Encoder) throws {
      switch self {
      case .path(let path):
        var container = encoder.singleValueContainer()
        try container.encode(path)
      case .id(let id):
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
      }
    }

    /// A JSON Pointer, or an object with the model's `id`.
    public static func jsonSchema(in definitions: inout JSONSchemaDefinitions) -> JSONSchema {
      .oneOf([
        JSONSchema.string.description(StatePath.note),
        .object(properties: [("id", JSONSchema(["type": "string", "pattern": "^[0-9a-f]{16}$"]))], required: ["id"], additionalProperties: false),
      ])
    }
  }

  /// When an `intent.call` replies.
  ///
  /// ```swift
  /// let params = IntentCall.Params(intent: "factButtonTapped", wait: .settled)
  /// ```
  public enum Wait: String, Codable, Sendable, Hashable, CaseIterable {
    /// Once the intent returned and its synchronous part committed.
    case committed
    /// Once every task it started (and every event it sent) has been handled too.
    case settled
  }

  /// The revision of the intent's own commit and its result; `firstRevision` and
  /// `commits` when it committed several revisions.
  ///
  /// ```swift
  /// let result = IntentCall.Result(revision: 3, result: nil)
  /// ```
  public struct Result: Codable, Sendable, Hashable {
    public var revision: Revision
    /// The intent's Codable result, `null` for none.
    public var result: JSONValue
    /// The first revision it committed, when it committed more than one.
    public var firstRevision: Revision?
    /// How many revisions it committed, when more than one.
    public var commits: Int?

    /// An intent's outcome.
    ///
    /// ```swift
    /// let result = IntentCall.Result(revision: 7, result: 42, firstRevision: 5, commits: 3)
    /// ```
    public init(revision: Revision, result: JSONValue, firstRevision: Revision? = nil, commits: Int? = nil) {
      self.revision = revision
      self.result = result
      self.firstRevision = firstRevision
      self.commits = commits
    }

    /// The result as the reply carries it, built without an encoder: the reply of every
    /// intent call is on the daemon's hot path. Equal to what `JSONValueEncoder` makes of
    /// it (a test checks both shapes).
    public var jsonValue: JSONValue {
      var members: [String: JSONValue] = ["revision": Self.number(revision), "result": result]
      if let firstRevision { members["firstRevision"] = Self.number(firstRevision) }
      if let commits { members["commits"] = .int(Int64(commits)) }
      return .object(members)
    }

    /// Appends the result as ``jsonValue`` writes (keys sorted: `commits`, `firstRevision`,
    /// `result`, `revision`), without building the object.
    ///
    /// ```swift
    /// var bytes: [UInt8] = []
    /// IntentCall.Result(revision: 7, result: 42).writeJSON(to: &bytes)   // {"result":42,"revision":7}
    /// ```
    public func writeJSON(to bytes: inout [UInt8]) {
      bytes.append(UInt8(ascii: "{"))
      if let commits {
        bytes.append(contentsOf: #""commits":"#.utf8)
        JSONValue.int(Int64(commits)).writeJSON(to: &bytes)
        bytes.append(UInt8(ascii: ","))
      }
      if let firstRevision {
        bytes.append(contentsOf: #""firstRevision":"#.utf8)
        Self.number(firstRevision).writeJSON(to: &bytes)
        bytes.append(UInt8(ascii: ","))
      }
      bytes.append(contentsOf: #""result":"#.utf8)
      result.writeJSON(to: &bytes)
      bytes.append(contentsOf: #","revision":"#.utf8)
      Self.number(revision).writeJSON(to: &bytes)
      bytes.append(UInt8(ascii: "}"))
    }

    /// A revision as a JSON number: an integer, or (beyond `Int64`, which no daemon reaches
    /// but a decoded reply may hold) the nearest `Double`, as parsing its digits gives.
    private static func number(_ revision: Revision) -> JSONValue {
      Int64(exactly: revision).map(JSONValue.int) ?? .double(Double(revision))
    }
  }
}
