import ArborMacroExpansions
import MacroTesting
import Testing

@Suite(.macros(["Model": ModelMacro.self, "_ModelTracked": ModelTrackedMacro.self], record: .never))
struct ModelMacroTests {
  @Test func expandsStoredVarsIntoTrackedAccessors() {
    assertMacro {
      """
      @Model struct CounterModel {
        var count = 0
        let step: Int
        var title: String
      }
      """
    } expansion: {
      #"""
      struct CounterModel {
        @Arbor._ModelTracked(0)
        var count = 0
        let step: Int
        @Arbor._ModelTracked(1)
        var title: String

        var _$modelContext = Arbor.ModelContext<Self>()

        func _$withContext(_ context: Arbor.ModelContext<Self>) -> Self {
          var copy = self
          copy._$modelContext = context
          return copy
        }

        init(count: Int = 0, step: Int, title: String) {
          self.count = count
          self.step = step
          self.title = title
        }

        struct _$State: Sendable {
          var count = Arbor._$uninitialized {
            0
          }
          var title: Optional<String> = nil
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
          2
        }

        static func _$propertyName(_ index: Int) -> String {
          switch index {
          case 0:
            return "count"
          case 1:
            return "title"
          default:
            return "#\(index)"
          }
        }

        static func _$visit(_ state: _$State, property: Int, into visitor: inout Arbor.ModelVisitor) {
          switch property {
          case 0:
            break
          case 1:
            break
          default:
            break
          }
        }

        static func _$propertyIndex(of keyPath: PartialKeyPath<Self>) -> Int? {
          if keyPath == \Self.count {
            return 0
          }
          if keyPath == \Self.title {
            return 1
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
          schema.add("title", \_$State.title, hasDefault: false, in: &definitions)
          schema.add("step", Int.self, in: &definitions)
          return schema.build()
        }

        func encode(to encoder: any Encoder) throws {
          var container = Arbor._StateEncodingContainer(encoder)
          try container.encodeID(_$modelContext.id)
          let state = _$modelContext._$stateForEncoding()
          try container.encode(state.count, forKey: "count")
          try container.encode(state.title, forKey: "title")
          try container.encode(self.step, forKey: "step")
        }

        init(from decoder: any Decoder) throws {
          let container = try Arbor._StateDecodingContainer(decoder)
          let step = try container.decode(Int.self, forKey: "step")
          var state = _$State()
          state.count = try container.decode(state.count, forKey: "count", default: {
              0
            })
          state.title = try container.decode(state.title, forKey: "title")
          let context = try container.context(Self.self, state: state, decodesID: true)
          self.init(_$restoring: context, step: step, title: state.title!)
        }

        private init(_$restoring context: Arbor.ModelContext<Self>, step: Int, title: String) {
          self._$modelContext = context
          self.step = step
          self.title = title
        }
      }
      """#
    }
  }

  @Test func publicModelsGetPublicMembers() {
    assertMacro {
      """
      @Model public struct Row {
        public var counter: CounterModel
      }
      """
    } expansion: {
      #"""
      public struct Row {
        @Arbor._ModelTracked(0)
        public var counter: CounterModel

        public var _$modelContext = Arbor.ModelContext<Self>()

        public func _$withContext(_ context: Arbor.ModelContext<Self>) -> Self {
          var copy = self
          copy._$modelContext = context
          return copy
        }

        init(counter: CounterModel) {
          self.counter = counter
        }

        public struct _$State: Sendable {
          var counter: Optional<CounterModel> = nil
          init() {
          }
        }

        public static func _$emptyState() -> _$State {
          _$State()
        }

        public static var _$typeName: String {
          "Row"
        }

        public static var _$propertyCount: Int {
          1
        }

        public static func _$propertyName(_ index: Int) -> String {
          switch index {
          case 0:
            return "counter"
          default:
            return "#\(index)"
          }
        }

        public static func _$visit(_ state: _$State, property: Int, into visitor: inout Arbor.ModelVisitor) {
          switch property {
          case 0:
            visitor.visit(state.counter)
          default:
            break
          }
        }

        public static func _$propertyIndex(of keyPath: PartialKeyPath<Self>) -> Int? {
          if keyPath == \Self.counter {
            return 0
          }
          return nil
        }

        public var id: Arbor.ModelID {
          _$modelContext.id
        }

        public static func _$stateSchema(in definitions: inout Arbor._JSONSchemaDefinitions) -> Arbor._JSONSchema {
          var schema = Arbor._StateSchema()
          schema.addID()
          schema.add("counter", \_$State.counter, hasDefault: false, in: &definitions)
          return schema.build()
        }

        public func encode(to encoder: any Encoder) throws {
          var container = Arbor._StateEncodingContainer(encoder)
          try container.encodeID(_$modelContext.id)
          let state = _$modelContext._$stateForEncoding()
          try container.encode(state.counter, forKey: "counter")
        }

        public init(from decoder: any Decoder) throws {
          let container = try Arbor._StateDecodingContainer(decoder)
          var state = _$State()
          state.counter = try container.decode(state.counter, forKey: "counter")
          let context = try container.context(Self.self, state: state, decodesID: true)
          self.init(_$restoring: context, counter: state.counter!)
        }

        private init(_$restoring context: Arbor.ModelContext<Self>, counter: CounterModel) {
          self._$modelContext = context
          self.counter = counter
        }
      }
      """#
    }
  }

  @Test func modelsWithoutStateGetADefaultContext() {
    assertMacro {
      """
      @Model struct Tag {
        let name: String
      }
      """
    } expansion: {
      #"""
      struct Tag {
        let name: String

        var _$modelContext = Arbor.ModelContext<Self>()

        func _$withContext(_ context: Arbor.ModelContext<Self>) -> Self {
          var copy = self
          copy._$modelContext = context
          return copy
        }

        init(name: String) {
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
          "Tag"
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

        init(from decoder: any Decoder) throws {
          let container = try Arbor._StateDecodingContainer(decoder)
          let name = try container.decode(String.self, forKey: "name")
          let state = _$State()
          let context = try container.context(Self.self, state: state, decodesID: true)
          self.init(_$restoring: context, name: name)
        }

        private init(_$restoring context: Arbor.ModelContext<Self>, name: String) {
          self._$modelContext = context
          self.name = name
        }
      }
      """#
    }
  }

  @Test func aDeclaredIdIsKept() {
    assertMacro {
      """
      @Model struct Named {
        let id: String
        var score = 0
      }
      """
    } expansion: {
      #"""
      struct Named {
        let id: String
        @Arbor._ModelTracked(0)
        var score = 0

        var _$modelContext = Arbor.ModelContext<Self>()

        func _$withContext(_ context: Arbor.ModelContext<Self>) -> Self {
          var copy = self
          copy._$modelContext = context
          return copy
        }

        init(id: String, score: Int = 0) {
          self.id = id
          self.score = score
        }

        struct _$State: Sendable {
          var score = Arbor._$uninitialized {
            0
          }
          init() {
          }
        }

        static func _$emptyState() -> _$State {
          _$State()
        }

        static var _$typeName: String {
          "Named"
        }

        static var _$propertyCount: Int {
          1
        }

        static func _$propertyName(_ index: Int) -> String {
          switch index {
          case 0:
            return "score"
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
          if keyPath == \Self.score {
            return 0
          }
          return nil
        }

        static func _$stateSchema(in definitions: inout Arbor._JSONSchemaDefinitions) -> Arbor._JSONSchema {
          var schema = Arbor._StateSchema()
          schema.add("score", \_$State.score, hasDefault: true, in: &definitions)
          schema.add("id", String.self, in: &definitions)
          return schema.build()
        }

        func encode(to encoder: any Encoder) throws {
          var container = Arbor._StateEncodingContainer(encoder)
          let state = _$modelContext._$stateForEncoding()
          try container.encode(state.score, forKey: "score")
          try container.encode(self.id, forKey: "id")
        }

        init(from decoder: any Decoder) throws {
          let container = try Arbor._StateDecodingContainer(decoder)
          let id = try container.decode(String.self, forKey: "id")
          var state = _$State()
          state.score = try container.decode(state.score, forKey: "score", default: {
              0
            })
          let context = try container.context(Self.self, state: state, decodesID: false)
          self.init(_$restoring: context, id: id)
        }

        private init(_$restoring context: Arbor.ModelContext<Self>, id: String) {
          self._$modelContext = context
          self.id = id
        }
      }
      """#
    }
  }

  @Test func computedStaticAndIgnoredPropertiesAreNotTracked() {
    assertMacro {
      """
      @Model struct Totals {
        var items: [Int] = []
        var sum: Int { items.reduce(0, +) }
        static var shared = 0
        @ModelIgnored var scratch = 0
      }
      """
    } expansion: {
      #"""
      struct Totals {
        @Arbor._ModelTracked(0)
        var items: [Int] = []
        var sum: Int { items.reduce(0, +) }
        static var shared = 0
        @ModelIgnored var scratch = 0

        var _$modelContext = Arbor.ModelContext<Self>()

        func _$withContext(_ context: Arbor.ModelContext<Self>) -> Self {
          var copy = self
          copy._$modelContext = context
          return copy
        }

        init(items: [Int] = [], scratch: Int = 0) {
          self.items = items
          self.scratch = scratch
        }

        struct _$State: Sendable {
          var items: Optional<[Int]> = nil
          init() {
          }
        }

        static func _$emptyState() -> _$State {
          _$State()
        }

        static var _$typeName: String {
          "Totals"
        }

        static var _$propertyCount: Int {
          1
        }

        static func _$propertyName(_ index: Int) -> String {
          switch index {
          case 0:
            return "items"
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
          if keyPath == \Self.items {
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
          schema.add("items", \_$State.items, hasDefault: true, in: &definitions)
          return schema.build()
        }

        func encode(to encoder: any Encoder) throws {
          var container = Arbor._StateEncodingContainer(encoder)
          try container.encodeID(_$modelContext.id)
          let state = _$modelContext._$stateForEncoding()
          try container.encode(state.items, forKey: "items")
        }

        init(from decoder: any Decoder) throws {
          let container = try Arbor._StateDecodingContainer(decoder)
          var state = _$State()
          state.items = try container.decode(state.items, forKey: "items", default: {
              []
            })
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

@Suite(.macros(["Model": ModelMacro.self], record: .never))
struct ModelMacroDiagnosticTests {
  @Test func rejectsAClass() {
    assertMacro {
      """
      @Model class Counter {
        var count = 0
      }
      """
    } diagnostics: {
      """
      @Model class Counter {
      ┬─────
      ╰─ 🛑 @Model can only be applied to a struct; a model is a struct with reference semantics
        var count = 0
      }
      """
    }
  }

  @Test func rejectsAnEnum() {
    assertMacro {
      """
      @Model enum Mode {
        case on, off
      }
      """
    } diagnostics: {
      """
      @Model enum Mode {
      ┬─────
      ╰─ 🛑 @Model can only be applied to a struct; a model is a struct with reference semantics
        case on, off
      }
      """
    }
  }

  @Test func rejectsLazyAndObservedProperties() {
    assertMacro {
      """
      @Model struct Bad {
        lazy var cache = 0
        var watched = 0 {
          didSet { print(watched) }
        }
        var a = 0, b = 1
      }
      """
    } diagnostics: {
      """
      @Model struct Bad {
        lazy var cache = 0
        ┬─────────────────
        ╰─ 🛑 @Model does not support 'lazy' properties; use a computed property
        var watched = 0 {
        ╰─ 🛑 @Model does not support 'willSet'/'didSet'; observe the property with Observed in onActivate()
          didSet { print(watched) }
        }
        var a = 0, b = 1
        ┬───────────────
        ╰─ 🛑 @Model needs one property per 'var' declaration; split this declaration
      }
      """
    }
  }

  @Test func asksForATypeItCannotInferForTheMemberwiseInitializer() {
    assertMacro {
      """
      @Model struct Clock {
        var now = Date.now
      }
      """
    } diagnostics: {
      """
      @Model struct Clock {
        var now = Date.now
            ┬─────────────
            ╰─ 🛑 @Model writes the memberwise initializer and cannot infer the type of 'now'; add a type annotation, or declare an initializer
      }
      """
    }
  }

  @Test func keepsADeclaredInitializerAndNeedsNoAnnotation() {
    assertMacro {
      """
      @Model struct Clock {
        var now = Date.now
        init() {}
      }
      """
    } expansion: {
      #"""
      struct Clock {
        @Arbor._ModelTracked(0)
        var now = Date.now
        init() {}

        var _$modelContext = Arbor.ModelContext<Self>()

        func _$withContext(_ context: Arbor.ModelContext<Self>) -> Self {
          var copy = self
          copy._$modelContext = context
          return copy
        }

        struct _$State: Sendable {
          var now = Arbor._$uninitialized {
            Date.now
          }
          init() {
          }
        }

        static func _$emptyState() -> _$State {
          _$State()
        }

        static var _$typeName: String {
          "Clock"
        }

        static var _$propertyCount: Int {
          1
        }

        static func _$propertyName(_ index: Int) -> String {
          switch index {
          case 0:
            return "now"
          default:
            return "#\(index)"
          }
        }

        static func _$visit(_ state: _$State, property: Int, into visitor: inout Arbor.ModelVisitor) {
          switch property {
          case 0:
            visitor.visit(state.now)
          default:
            break
          }
        }

        static func _$propertyIndex(of keyPath: PartialKeyPath<Self>) -> Int? {
          if keyPath == \Self.now {
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
          schema.add("now", \_$State.now, hasDefault: true, in: &definitions)
          return schema.build()
        }

        func encode(to encoder: any Encoder) throws {
          var container = Arbor._StateEncodingContainer(encoder)
          try container.encodeID(_$modelContext.id)
          let state = _$modelContext._$stateForEncoding()
          try container.encode(state.now, forKey: "now")
        }

        init(from decoder: any Decoder) throws {
          let container = try Arbor._StateDecodingContainer(decoder)
          var state = _$State()
          state.now = try container.decode(state.now, forKey: "now", default: {
              Date.now
            })
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
