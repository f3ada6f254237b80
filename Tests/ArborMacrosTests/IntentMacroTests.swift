import ArborMacroExpansions
import MacroTesting
import Testing

@Suite(.macros(["Intent": IntentMacro.self], record: .never))
struct IntentMacroTests {
  @Test func anIntentExpandsToNothing() {
    assertMacro {
      """
      @Intent func set(to value: Int, _ note: String = "") async throws -> Int { value }
      """
    } expansion: {
      """
      func set(to value: Int, _ note: String = "") async throws -> Int { value }
      """
    }
  }

  @Test func rejectsWhatCannotBeCalledWithJSON() {
    assertMacro {
      """
      @Intent static func reset<T>(_ values: Int..., into target: inout Int) {}
      """
    } diagnostics: {
      """
      @Intent static func reset<T>(_ values: Int..., into target: inout Int) {}
                          ┬────
                          ├─ 🛑 @Intent applies to instance methods; 'reset' is static
                          ├─ 🛑 @Intent methods cannot be generic: their parameters are decoded from JSON
                          ├─ 🛑 @Intent parameters cannot be variadic; take an array
                          ╰─ 🛑 @Intent parameters cannot be inout
      """
    }
  }

  @Test func rejectsAProperty() {
    assertMacro {
      """
      @Intent var count = 0
      """
    } diagnostics: {
      """
      @Intent var count = 0
      ┬──────
      ╰─ 🛑 @Intent applies to a method of a @Model struct
      """
    }
  }
}

@Suite(.macros(["Model": ModelMacro.self, "Intent": IntentMacro.self], record: .never))
struct ModelIntentTableTests {
  @Test func intentsBecomeADispatchTable() {
    assertMacro {
      """
      @Model struct CounterModel {
        var count = 0
        @Intent func incrementTapped() { count += 1 }
        @Intent func set(to value: Int, _ note: String? = nil) -> Int { count = value; return count }
        @Intent func load(_ number: Int) async throws -> String { "" }
        func notAnIntent() {}
      }
      """
    } expansion: {
      #"""
      struct CounterModel {
        @Arbor._ModelTracked(0)
        var count = 0
        func incrementTapped() { count += 1 }
        func set(to value: Int, _ note: String? = nil) -> Int { count = value; return count }
        func load(_ number: Int) async throws -> String { "" }
        func notAnIntent() {}

        var _$modelContext = Arbor.ModelContext<Self>()

        func _$withContext(_ context: Arbor.ModelContext<Self>) -> Self {
          var copy = self
          copy._$modelContext = context
          return copy
        }

        init(count: Int = 0) {
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
        }

        private static let _$intentTable: [Arbor._IntentDescriptor<CounterModel>] = [
          Arbor._IntentDescriptor<Self>(
          name: "incrementTapped",
          parameters: [],
          result: Arbor._intentResult(Void.self),
          perform: { model, arguments in
            try arguments.result(model.incrementTapped())
          }
          ),
          Arbor._IntentDescriptor<Self>(
            name: "set",
            parameters: [Arbor._IntentParameter("to", Int.self), Arbor._IntentParameter("arg1", String?.self, default: {
                nil
              })],
            result: Arbor._intentResult(Int.self),
            perform: { model, arguments in
              try arguments.result(model.set(to: arguments.value("to", Int.self), arguments.value("arg1", String?.self, default: {
                    nil
                  })))
            }
          ),
          Arbor._IntentDescriptor<Self>(
            name: "load",
            parameters: [Arbor._IntentParameter("arg0", Int.self)],
            result: Arbor._intentResult(String.self),
            call: { model, arguments in
              try arguments.result(await model.load(arguments.value("arg0", Int.self)))
            }
          )
        ]

        static var _$intents: [Arbor._IntentDescriptor<Self>] {
          _$intentTable
        }
      }
      """#
    }
  }

  @Test func anIgnoredPropertyNeedsADefault() {
    assertMacro {
      """
      @Model struct Device {
        @ModelIgnored var connection: Connection
        @ModelIgnored var log: Log?
      }
      """
    } diagnostics: {
      """
      @Model struct Device {
        @ModelIgnored var connection: Connection
                          ┬─────────────────────
                          ╰─ 🛑 an @ModelIgnored property is not part of the model's state, so a restored model needs a default value for it: add one (or make it optional)
                             ✏️ make it optional: a restored model gets nil
        @ModelIgnored var log: Log?
      }
      """
    } fixes: {
      """
      @Model struct Device {
        @ModelIgnored var connection: Connection?
        @ModelIgnored var log: Log?
      }
      """
    } expansion: {
      #"""
      struct Device {
        @ModelIgnored var connection: Connection?
        @ModelIgnored var log: Log?

        var _$modelContext = Arbor.ModelContext<Self>()

        func _$withContext(_ context: Arbor.ModelContext<Self>) -> Self {
          var copy = self
          copy._$modelContext = context
          return copy
        }

        init(connection: Connection? = nil, log: Log? = nil) {
          self.connection = connection
          self.log = log
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
