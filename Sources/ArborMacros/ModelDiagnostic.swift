import SwiftDiagnostics
import SwiftSyntax

/// The errors the macros report, each naming what to change.
enum ModelDiagnostic: String, DiagnosticMessage {
  case modelNotStruct
  case containerNotEnumOrStruct
  case lazyProperty
  case propertyObservers
  case multipleBindings
  case ignoredWithoutDefault

  var severity: DiagnosticSeverity { .error }
  var diagnosticID: MessageID { MessageID(domain: "Arbor", id: rawValue) }

  var message: String {
    switch self {
    case .modelNotStruct:
      return "@Model can only be applied to a struct; a model is a struct with reference semantics"
    case .containerNotEnumOrStruct:
      return "@ModelContainer can only be applied to an enum or a struct"
    case .lazyProperty:
      return "@Model does not support 'lazy' properties; use a computed property"
    case .propertyObservers:
      return "@Model does not support 'willSet'/'didSet'; observe the property with Observed in onActivate()"
    case .multipleBindings:
      return "@Model needs one property per 'var' declaration; split this declaration"
    case .ignoredWithoutDefault:
      return "an @ModelIgnored property is not part of the model's state, so a restored model needs a default value for it: add one (or make it optional)"
    }
  }
}

struct CustomFixIt: FixItMessage {
  let message: String
  var fixItID: MessageID { MessageID(domain: "Arbor", id: "fix") }
}

struct CustomDiagnostic: DiagnosticMessage {
  let message: String
  var severity: DiagnosticSeverity { .error }
  var diagnosticID: MessageID { MessageID(domain: "Arbor", id: "custom") }
}
