import ArborMacroExpansions
import MacroTesting
import Testing

/// Closures and other values that are not state, in `let`s and `@ModelIgnored var`s.
@Suite(.macros(["Model": ModelMacro.self], record: .never))
struct ClosurePropertyMacroTests {
  /// A closure `let` of any shape is a parameter of the memberwise initializer (escaping),
  /// and nothing else: not in the schema, not encoded. With no value a restore could give
  /// it, the model lists it and its `init(from:)` refuses.
  @Test func closureLetsAreNotStateAndMakeTheModelInProcessOnly() {
    assertMacro {
      """
      @Model struct RecordMeetingModel {
        let title: String
        let onSave: @Sendable (String) async -> Void
        let onDiscard: @Sendable () -> Void
        let onFact: (@Sendable (Int, String) -> Void)
        var transcript = ""
      }
      """
    } expansion: {
      #"""
      struct RecordMeetingModel {
        let title: String
        let onSave: @Sendable (String) async -> Void
        let onDiscard: @Sendable () -> Void
        let onFact: (@Sendable (Int, String) -> Void)
        @Arbor._ModelTracked(0)
        var transcript = ""

        var _$modelContext = Arbor.ModelContext<Self>()

        func _$withContext(_ context: Arbor.ModelContext<Self>) -> Self {
          var copy = self
          copy._$modelContext = context
          return copy
        }

        init(title: String, onSave: @escaping @Sendable (String) async -> Void, onDiscard: @escaping @Sendable () -> Void, onFact: @escaping @Sendable (Int, String) -> Void, transcript: String = "") {
          self.title = title
          self.onSave = onSave
          self.onDiscard = onDiscard
          self.onFact = onFact
          self.transcript = transcript
        }

        struct _$State: Sendable {
          var transcript = Arbor._$uninitialized {
            ""
          }
          init() {
          }
        }

        static func _$emptyState() -> _$State {
          _$State()
        }

        static var _$typeName: String {
          "RecordMeetingModel"
        }

        static var _$propertyCount: Int {
          1
        }

        static func _$propertyName(_ index: Int) -> String {
          switch index {
          case 0:
            return "transcript"
          default:
            return "#\(index)"
          }
        }

        static func _$visit(_ state: _$State, property: Int, into visitor: inout Arbor.ModelVisitor) {
          switch property {
          case 0:
            break
          default:
            break
          }
        }

        static func _$propertyIndex(of keyPath: PartialKeyPath<Self>) -> Int? {
          if keyPath == \Self.transcript {
            return 0
          }
          return nil
        }

        var id: Arbor.ModelID {
          _$modelContext.id
        }

        static func _$stateSchema(in definitions: inout Arbor._JSONSchemaDefinitions) -> Arbor._JSONSchema {
          var schema = Arbor._StateSchema()
          schema.addID()
          schema.add("transcript", \_$State.transcript, hasDefault: true, in: &definitions)
          schema.add("title", String.self, in: &definitions)
          return schema.build()
        }

        func encode(to encoder: any Encoder) throws {
          var container = Arbor._StateEncodingContainer(encoder)
          try container.encodeID(_$modelContext.id)
          let state = _$modelContext._$stateForEncoding()
          try container.encode(state.transcript, forKey: "transcript")
          try container.encode(self.title, forKey: "title")
        }

        static var _$unrestorableProperties: [(name: String, declaration: String)] {
          [("onSave", "let onSave: @Sendable (String) async -> Void"), ("onDiscard", "let onDiscard: @Sendable () -> Void"), ("onFact", "let onFact: (@Sendable (Int, String) -> Void)")]
        }

        init(from decoder: any Decoder) throws {
          self = try Arbor._refuseRestoring(Self.self, from: decoder)
        }
      }
      """#
    }
  }

  /// An optional closure `let` is not state either; a restore gives it `nil`, so the model
  /// stays restorable.
  @Test func anOptionalClosureLetRestoresAsNil() {
    assertMacro {
      """
      @Model struct Row {
        let onTap: (@Sendable () -> Void)?
        let onChange: Optional<@Sendable (Int) -> Void>
        var count = 0
      }
      """
    } expansion: {
      #"""
      struct Row {
        let onTap: (@Sendable () -> Void)?
        let onChange: Optional<@Sendable (Int) -> Void>
        @Arbor._ModelTracked(0)
        var count = 0

        var _$modelContext = Arbor.ModelContext<Self>()

        func _$withContext(_ context: Arbor.ModelContext<Self>) -> Self {
          var copy = self
          copy._$modelContext = context
          return copy
        }

        init(onTap: (@Sendable () -> Void)?, onChange: Optional<@Sendable (Int) -> Void>, count: Int = 0) {
          self.onTap = onTap
          self.onChange = onChange
          self.count = count
        }

        struct _$State: Sendable {
          var count = Arbor._$uninitialized {
            0
          }
          init() {
          }
        }

        static func _$emptyState() -> _$State {
          _$State()
        }

        static var _$typeName: String {
          "Row"
        }

        static var _$propertyCount: Int {
          1
        }

        static func _$propertyName(_ index: Int) -> String {
          switch index {
          case 0:
            return "count"
          default:
            return "#\(index)"
          }
        }

        static func _$visit(_ state: _$State, property: Int, into visitor: inout Arbor.ModelVisitor) {
          switch property {
          case 0:
            break
          default:
            break
          }
        }

        static func _$propertyIndex(of keyPath: PartialKeyPath<Self>) -> Int? {
          if keyPath == \Self.count {
            return 0
          }
          return nil
        }

        var id: Arbor.ModelID {
          _$modelContext.id
        }

        static func _$stateSchema(in definitions: inout Arbor._JSONSchemaDefinitions) -> Arbor._JSONSchema {
          var schema = Arbor._StateSchema()
          schema.addID()
          schema.add("count", \_$State.count, hasDefault: true, in: &definitions)
          return schema.build()
        }

        func encode(to encoder: any Encoder) throws {
          var container = Arbor._StateEncodingContainer(encoder)
          try container.encodeID(_$modelContext.id)
          let state = _$modelContext._$stateForEncoding()
          try container.encode(state.count, forKey: "count")
        }

        init(from decoder: any Decoder) throws {
          let container = try Arbor._StateDecodingContainer(decoder)
          var state = _$State()
          state.count = try container.decode(state.count, forKey: "count", default: {
              0
            })
          let context = try container.context(Self.self, state: state, decodesID: true)
          self.init(_$restoring: context)
        }

        private init(_$restoring context: Arbor.ModelContext<Self>) {
          self._$modelContext = context
          self.onTap = nil
          self.onChange = nil
        }
      }
      """#
    }
  }

  /// `@ModelIgnored let` keeps any `let` out of the state, a closure behind a type alias
  /// or a handle that is not `Codable`.
  @Test func anIgnoredLetIsNotState() {
    assertMacro {
      """
      @Model struct Device {
        @ModelIgnored let connection: Connection
        @ModelIgnored let log: EventLog?
        let name: String
      }
      """
    } expansion: {
      #"""
      struct Device {
        @ModelIgnored let connection: Connection
        @ModelIgnored let log: EventLog?
        let name: String

        var _$modelContext = Arbor.ModelContext<Self>()

        func _$withContext(_ context: Arbor.ModelContext<Self>) -> Self {
          var copy = self
          copy._$modelContext = context
          return copy
        }

        init(connection: Connection, log: EventLog?, name: String) {
          self.connection = connection
          self.log = log
          self.name = name
        }

        struct _$State: Sendable {

          init() {
          }
        }

        static func _$emptyState() -> _$State {
          _$State()
        }

        static var _$typeName: String {
          "Device"
        }

        static var _$propertyCount: Int {
          0
        }

        static func _$propertyName(_ index: Int) -> String {
          switch index {

          default:
            return "#\(index)"
          }
        }

        static func _$visit(_ state: _$State, property: Int, into visitor: inout Arbor.ModelVisitor) {
          switch property {

          default:
            break
          }
        }

        static func _$propertyIndex(of keyPath: PartialKeyPath<Self>) -> Int? {

          return nil
        }

        var id: Arbor.ModelID {
          _$modelContext.id
        }

        static func _$stateSchema(in definitions: inout Arbor._JSONSchemaDefinitions) -> Arbor._JSONSchema {
          var schema = Arbor._StateSchema()
          schema.addID()
          schema.add("name", String.self, in: &definitions)
          return schema.build()
        }

        func encode(to encoder: any Encoder) throws {
          var container = Arbor._StateEncodingContainer(encoder)
          try container.encodeID(_$modelContext.id)
          try container.encode(self.name, forKey: "name")
        }

        static var _$unrestorableProperties: [(name: String, declaration: String)] {
          [("connection", "@ModelIgnored let connection: Connection")]
        }

        init(from decoder: any Decoder) throws {
          self = try Arbor._refuseRestoring(Self.self, from: decoder)
        }
      }
      """#
    }
  }
}

@Suite(.macros(["Model": ModelMacro.self], record: .never))
struct ClosurePropertyDiagnosticTests {
  /// A model is Sendable: a closure without `@Sendable` is reported on its line, and the
  /// Fix-It adds `@Sendable`.
  @Test func aClosureThatIsNotSendableIsReportedWithAFixIt() {
    assertMacro {
      """
      @Model struct CounterModel {
        var count = 0
        let onFact: (Int, String) -> Void
        let onDismiss: (() -> Void)?
        let onMain: @MainActor () -> Void
      }
      """
    } diagnostics: {
      """
      @Model struct CounterModel {
        var count = 0
        let onFact: (Int, String) -> Void
                    ┬────────────────────
                    ╰─ 🛑 a model is Sendable, so the closure in 'onFact' must be too: declare it '@Sendable (Int, String) -> Void'
                       ✏️ insert '@Sendable'
        let onDismiss: (() -> Void)?
                       ┬────────────
                       ╰─ 🛑 a model is Sendable, so the closure in 'onDismiss' must be too: declare it '@Sendable () -> Void'
                          ✏️ insert '@Sendable'
        let onMain: @MainActor () -> Void
      }
      """
    } fixes: {
      """
      @Model struct CounterModel {
        var count = 0
        let onFact: @Sendable (Int, String) -> Void
        let onDismiss: (@Sendable () -> Void)?
        let onMain: @MainActor () -> Void
      }
      """
    } expansion: {
      #"""
      struct CounterModel {
        @Arbor._ModelTracked(0)
        var count = 0
        let onFact: @Sendable (Int, String) -> Void
        let onDismiss: (@Sendable () -> Void)?
        let onMain: @MainActor () -> Void

        var _$modelContext = Arbor.ModelContext<Self>()

        func _$withContext(_ context: Arbor.ModelContext<Self>) -> Self {
          var copy = self
          copy._$modelContext = context
          return copy
        }

        init(count: Int = 0, onFact: @escaping @Sendable (Int, String) -> Void, onDismiss: (@Sendable () -> Void)?, onMain: @escaping @MainActor () -> Void) {
          self.count = count
          self.onFact = onFact
          self.onDismiss = onDismiss
          self.onMain = onMain
        }

        struct _$State: Sendable {
          var count = Arbor._$uninitialized {
            0
          }
          init() {
          }
        }

        static func _$emptyState() -> _$State {
          _$State()
        }

        static var _$typeName: String {
          "CounterModel"
        }

        static var _$propertyCount: Int {
          1
        }

        static func _$propertyName(_ index: Int) -> String {
          switch index {
          case 0:
            return "count"
          default:
            return "#\(index)"
          }
        }

        static func _$visit(_ state: _$State, property: Int, into visitor: inout Arbor.ModelVisitor) {
          switch property {
          case 0:
            break
          default:
            break
          }
        }

        static func _$propertyIndex(of keyPath: PartialKeyPath<Self>) -> Int? {
          if keyPath == \Self.count {
            return 0
          }
          return nil
        }

        var id: Arbor.ModelID {
          _$modelContext.id
        }

        static func _$stateSchema(in definitions: inout Arbor._JSONSchemaDefinitions) -> Arbor._JSONSchema {
          var schema = Arbor._StateSchema()
          schema.addID()
          schema.add("count", \_$State.count, hasDefault: true, in: &definitions)
          return schema.build()
        }

        func encode(to encoder: any Encoder) throws {
          var container = Arbor._StateEncodingContainer(encoder)
          try container.encodeID(_$modelContext.id)
          let state = _$modelContext._$stateForEncoding()
          try container.encode(state.count, forKey: "count")
        }

        static var _$unrestorableProperties: [(name: String, declaration: String)] {
          [("onFact", "let onFact: @Sendable (Int, String) -> Void"), ("onMain", "let onMain: @MainActor () -> Void")]
        }

        init(from decoder: any Decoder) throws {
          self = try Arbor._refuseRestoring(Self.self, from: decoder)
        }
      }
      """#
    }
  }

  /// An ignored `var` without a default: a closure returning nothing gets a default that
  /// does nothing, anything else is made optional.
  @Test func anIgnoredVarWithoutADefaultGetsAFixIt() {
    assertMacro {
      """
      @Model struct Recorder {
        @ModelIgnored var onSave: @Sendable (String, Int) async -> Void
        @ModelIgnored var format: @Sendable (Int) -> String
        @ModelIgnored var connection: any Connection
        @ModelIgnored var onStop: (@Sendable () -> Void)?
      }
      """
    } diagnostics: {
      """
      @Model struct Recorder {
        @ModelIgnored var onSave: @Sendable (String, Int) async -> Void
                          ┬────────────────────────────────────────────
                          ╰─ 🛑 an @ModelIgnored property is not part of the model's state, so a restored model needs a default value for it: add one (or make it optional)
                             ✏️ give it a default that does nothing: '= { _, _ in }'
        @ModelIgnored var format: @Sendable (Int) -> String
                          ┬────────────────────────────────
                          ╰─ 🛑 an @ModelIgnored property is not part of the model's state, so a restored model needs a default value for it: add one (or make it optional)
                             ✏️ make it optional: a restored model gets nil
        @ModelIgnored var connection: any Connection
                          ┬─────────────────────────
                          ╰─ 🛑 an @ModelIgnored property is not part of the model's state, so a restored model needs a default value for it: add one (or make it optional)
                             ✏️ make it optional: a restored model gets nil
        @ModelIgnored var onStop: (@Sendable () -> Void)?
      }
      """
    } fixes: {
      """
      @Model struct Recorder {
        @ModelIgnored var onSave: @Sendable (String, Int) async -> Void = { _, _ in }
        @ModelIgnored var format: (@Sendable (Int) -> String)?
        @ModelIgnored var connection: (any Connection)?
        @ModelIgnored var onStop: (@Sendable () -> Void)?
      }
      """
    } expansion: {
      #"""
      struct Recorder {
        @ModelIgnored var onSave: @Sendable (String, Int) async -> Void = { _, _ in }
        @ModelIgnored var format: (@Sendable (Int) -> String)?
        @ModelIgnored var connection: (any Connection)?
        @ModelIgnored var onStop: (@Sendable () -> Void)?

        var _$modelContext = Arbor.ModelContext<Self>()

        func _$withContext(_ context: Arbor.ModelContext<Self>) -> Self {
          var copy = self
          copy._$modelContext = context
          return copy
        }

        init(onSave: @escaping @Sendable (String, Int) async -> Void = { _, _ in
          }, format: (@Sendable (Int) -> String)? = nil, connection: (any Connection)? = nil, onStop: (@Sendable () -> Void)? = nil) {
          self.onSave = onSave
          self.format = format
          self.connection = connection
          self.onStop = onStop
        }

        struct _$State: Sendable {

          init() {
          }
        }

        static func _$emptyState() -> _$State {
          _$State()
        }

        static var _$typeName: String {
          "Recorder"
        }

        static var _$propertyCount: Int {
          0
        }

        static func _$propertyName(_ index: Int) -> String {
          switch index {

          default:
            return "#\(index)"
          }
        }

        static func _$visit(_ state: _$State, property: Int, into visitor: inout Arbor.ModelVisitor) {
          switch property {

          default:
            break
          }
        }

        static func _$propertyIndex(of keyPath: PartialKeyPath<Self>) -> Int? {

          return nil
        }

        var id: Arbor.ModelID {
          _$modelContext.id
        }

        static func _$stateSchema(in definitions: inout Arbor._JSONSchemaDefinitions) -> Arbor._JSONSchema {
          var schema = Arbor._StateSchema()
          schema.addID()
          return schema.build()
        }

        func encode(to encoder: any Encoder) throws {
          var container = Arbor._StateEncodingContainer(encoder)
          try container.encodeID(_$modelContext.id)
        }

        init(from decoder: any Decoder) throws {
          let container = try Arbor._StateDecodingContainer(decoder)
          let state = _$State()
          let context = try container.context(Self.self, state: state, decodesID: true)
          self.init(_$restoring: context)
        }

        private init(_$restoring context: Arbor.ModelContext<Self>) {
          self._$modelContext = context
        }
      }
      """#
    }
  }
}
