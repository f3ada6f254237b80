import ArborJSON

/// The OpenRPC 1.3 document `rpc.discover` replies: every method with its parameters,
/// result and role, and the schemas of the state, the intents and the events.
///
/// ```swift
/// let document = try await client.call(RPCDiscover.self, NoParams())
/// let stateGet = document.methods.first { $0.name == "state.get" }
/// print(stateGet?.result.schema.value ?? "")
/// ```
public struct OpenRPCDocument: Codable, Sendable, Hashable {
  /// The OpenRPC version, `1.3.2`.
  public var openrpc: String
  public var info: Info
  public var methods: [Method]
  public var components: Components

  /// A document.
  ///
  /// ```swift
  /// let document = OpenRPCDocument(openrpc: "1.3.2", info: .init(title: "d", version: "0.1.0"), methods: [], components: .init())
  /// ```
  public init(openrpc: String, info: Info, methods: [Method], components: Components) {
    self.openrpc = openrpc
    self.info = info
    self.methods = methods
    self.components = components
  }

  /// The daemon's name and Arbor's release.
  ///
  /// ```swift
  /// let info = OpenRPCDocument.Info(title: "counterfactd", version: "0.1.0")
  /// ```
  public struct Info: Codable, Sendable, Hashable {
    public var title: String
    public var version: String

    /// The document's title and version.
    ///
    /// ```swift
    /// let info = OpenRPCDocument.Info(title: "counterfactd", version: "0.1.0")
    /// ```
    public init(title: String, version: String) {
      self.title = title
      self.version = version
    }
  }

  /// One method: its name, what it does, its parameters (by name), its result and the role
  /// it needs (`x-role`).
  ///
  /// ```swift
  /// for method in document.methods { print(method.name, method.role) }
  /// ```
  public struct Method: Codable, Sendable, Hashable {
    public var name: String
    public var summary: String
    /// Always `by-name`.
    public var paramStructure: String
    public var params: [ContentDescriptor]
    public var result: ContentDescriptor
    /// `reader`, `operator` or `admin`.
    public var role: String

    /// A method's description.
    ///
    /// ```swift
    /// let method = OpenRPCDocument.Method(name: "state.get", summary: "…", params: [], result: .init(name: "state.get.result", schema: .any), role: "reader")
    /// ```
    public init(name: String, summary: String, paramStructure: String = "by-name", params: [ContentDescriptor], result: ContentDescriptor, role: String) {
      self.name = name
      self.summary = summary
      self.paramStructure = paramStructure
      self.params = params
      self.result = result
      self.role = role
    }

    enum CodingKeys: String, CodingKey {
      case name, summary, paramStructure, params, result
      case role = "x-role"
    }
  }

  /// A parameter or a result: a name and a JSON Schema; parameters say whether they are
  /// required.
  ///
  /// ```swift
  /// let path = OpenRPCDocument.ContentDescriptor(name: "path", required: false, schema: .string)
  /// ```
  public struct ContentDescriptor: Codable, Sendable, Hashable {
    public var name: String
    public var required: Bool?
    public var schema: JSONSchema

    /// A content descriptor.
    ///
    /// ```swift
    /// let result = OpenRPCDocument.ContentDescriptor(name: "state.get.result", schema: .any)
    /// ```
    public init(name: String, required: Bool? = nil, schema: JSONSchema) {
      self.name = name
      self.required = required
      self.schema = schema
    }
  }

  /// `components`: the state's schema (`schemas.State`), the intents of every model type
  /// (`x-intents`: type, then intent, then its `params` and `result` schemas) and the
  /// schemas of their events (`x-events`).
  ///
  /// ```swift
  /// let increment = document.components.intents["CounterModel"]?["incrementTapped"]
  /// ```
  public struct Components: Codable, Sendable, Hashable {
    public var schemas: [String: JSONSchema]
    public var intents: [String: [String: IntentSchemas]]
    public var events: [String: JSONSchema]

    /// Components.
    ///
    /// ```swift
    /// let components = OpenRPCDocument.Components(schemas: ["State": .any])
    /// ```
    public init(schemas: [String: JSONSchema] = [:], intents: [String: [String: IntentSchemas]] = [:], events: [String: JSONSchema] = [:]) {
      self.schemas = schemas
      self.intents = intents
      self.events = events
    }

    enum CodingKeys: String, CodingKey {
      case schemas
      case intents = "x-intents"
      case events = "x-events"
    }
  }

  /// The schemas of one intent's parameters (an object, by argument label) and result.
  ///
  /// ```swift
  /// let schemas = OpenRPCDocument.IntentSchemas(params: .object(properties: [("by", .integer)]), result: .null)
  /// ```
  public struct IntentSchemas: Codable, Sendable, Hashable {
    public var params: JSONSchema
    public var result: JSONSchema

    /// An intent's schemas.
    ///
    /// ```swift
    /// let schemas = OpenRPCDocument.IntentSchemas(params: .object(properties: []), result: .null)
    /// ```
    public init(params: JSONSchema, result: JSONSchema) {
      self.params = params
      self.result = result
    }
  }
}
