import ArborMacroExpansions
import MacroTesting
import Testing

@Suite(.macros(["ModelContainer": ModelContainerMacro.self], record: .never))
struct ModelContainerMacroTests {
  @Test func enumCasesVisitTheirAssociatedValues() {
    assertMacro {
      """
      @ModelContainer enum Path {
        case none
        case detail(StandupDetail)
        case meeting(Meeting, standup: Standup)
      }
      """
    } expansion: {
      """
      enum Path {
        case none
        case detail(StandupDetail)
        case meeting(Meeting, standup: Standup)

        func _$visit(_ visitor: inout Arbor.ModelVisitor) {
          switch self {
          case .none:
            break
          case .detail(let value0):
            visitor.withComponent(.property("detail")) {
              $0.withComponent(.property("_0")) {
              $0.visit(value0)
            }
            }
          case .meeting(let value0, let value1):
            visitor.withComponent(.property("meeting")) {
              $0.withComponent(.property("_0")) {
              $0.visit(value0)
            }
              $0.withComponent(.property("standup")) {
              $0.visit(value1)
            }
            }
          }
        }

        static func jsonSchema(in definitions: inout Arbor._JSONSchemaDefinitions) -> Arbor._JSONSchema {
          definitions.define("Path") { definitions in
            Arbor._enumSchema([("none", []), ("detail", [("_0", definitions.schema(for: (StandupDetail).self), false)]), ("meeting", [("_0", definitions.schema(for: (Meeting).self), false), ("standup", definitions.schema(for: (Standup).self), false)])])
          }
        }
      }
      """
    }
  }

  @Test func genericStructsVisitTheirStoredProperties() {
    assertMacro {
      """
      @ModelContainer struct Paginated<Item: Model> {
        var items: [Item]
        var currentPage: Int
        var isEmpty: Bool { items.isEmpty }
      }
      """
    } expansion: {
      """
      struct Paginated<Item: Model> {
        var items: [Item]
        var currentPage: Int
        var isEmpty: Bool { items.isEmpty }

        func _$visit(_ visitor: inout Arbor.ModelVisitor) {
          visitor.withComponent(.property("items")) {
            $0.visit(self.items)
          }
          visitor.withComponent(.property("currentPage")) {
            $0.visit(self.currentPage)
          }
        }
      }
      """
    }
  }

  @Test func rejectsAClass() {
    assertMacro {
      """
      @ModelContainer class Holder {
        var item: Item
      }
      """
    } diagnostics: {
      """
      @ModelContainer class Holder {
      ┬──────────────
      ╰─ 🛑 @ModelContainer can only be applied to an enum or a struct
        var item: Item
      }
      """
    }
  }
}

@Suite(.macros(["ModelDependency": ModelDependencyMacro.self], record: .never))
struct ModelDependencyMacroTests {
  @Test func readsTheDependencyKeyedByTheDeclaredType() {
    assertMacro {
      """
      struct CounterModel {
        @ModelDependency var factClient: FactClient
      }
      """
    } expansion: {
      """
      struct CounterModel {
        var factClient: FactClient {
          get {
            node[FactClient.self]
          }
        }
      }
      """
    }
  }

  @Test func needsAType() {
    assertMacro {
      """
      struct CounterModel {
        @ModelDependency var factClient = FactClient()
      }
      """
    } diagnostics: {
      """
      struct CounterModel {
        @ModelDependency var factClient = FactClient()
        ┬───────────────
        ╰─ 🛑 @ModelDependency needs the dependency's type: write '@ModelDependency var name: Type'
      }
      """
    }
  }
}
