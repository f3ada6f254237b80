import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// `@Intent`: marks a model method as callable from outside. It expands to nothing; the
/// enclosing `@Model` reads the marked methods and generates their dispatch table. This
/// macro only checks that the method can be called with JSON parameters.
public struct IntentMacro: PeerMacro {
  public static func expansion(
    of node: AttributeSyntax,
    providingPeersOf declaration: some DeclSyntaxProtocol,
    in context: some MacroExpansionContext
  ) throws -> [DeclSyntax] {
    guard let function = declaration.as(FunctionDeclSyntax.self) else {
      context.diagnose(Diagnostic(node: node, message: CustomDiagnostic(message: "@Intent applies to a method of a @Model struct")))
      return []
    }
    for problem in IntentMethod.problems(of: function) {
      context.diagnose(Diagnostic(node: Syntax(function.name), message: CustomDiagnostic(message: problem)))
    }
    return []
  }
}

/// A method marked `@Intent`, as the dispatch table needs it.
struct IntentMethod {
  struct Parameter {
    /// The JSON key: the argument label, or `argN` for an unlabeled parameter.
    let key: String
    /// The label at the call site, nil for `_`.
    let label: String?
    let type: String
    let defaultValue: String?
  }

  let name: String
  let parameters: [Parameter]
  let resultType: String
  let isAsync: Bool
  let isThrowing: Bool

  init(_ function: FunctionDeclSyntax) {
    name = function.name.text
    parameters = function.signature.parameterClause.parameters.enumerated().map { offset, parameter in
      let label = parameter.firstName.tokenKind == .wildcard ? nil : parameter.firstName.text
      return Parameter(
        key: label ?? "arg\(offset)", label: label, type: parameter.type.trimmedDescription,
        defaultValue: parameter.defaultValue?.value.trimmedDescription)
    }
    resultType = function.signature.returnClause?.type.trimmedDescription ?? "Void"
    isAsync = function.signature.effectSpecifiers?.asyncSpecifier != nil
    isThrowing = function.signature.effectSpecifiers?.throwsClause != nil
  }

  /// What keeps a method from being an intent.
  static func problems(of function: FunctionDeclSyntax) -> [String] {
    var problems: [String] = []
    if function.modifiers.contains(where: { $0.name.tokenKind == .keyword(.static) || $0.name.tokenKind == .keyword(.class) }) {
      problems.append("@Intent applies to instance methods; '\(function.name.text)' is static")
    }
    if function.genericParameterClause != nil {
      problems.append("@Intent methods cannot be generic: their parameters are decoded from JSON")
    }
    for parameter in function.signature.parameterClause.parameters {
      if parameter.ellipsis != nil {
        problems.append("@Intent parameters cannot be variadic; take an array")
      }
      if let attributed = parameter.type.as(AttributedTypeSyntax.self),
        attributed.specifiers.contains(where: { $0.as(SimpleTypeSpecifierSyntax.self)?.specifier.tokenKind == .keyword(.inout) })
      {
        problems.append("@Intent parameters cannot be inout")
      }
    }
    return problems
  }
}

extension ModelMacro {
  /// The dispatch table of a model's intents.
  ///
  /// Where the struct may hold a static stored property (it is not generic and sits at file
  /// scope or in types that are not generic either), the table is built once, in a
  /// `static let`; a daemon looks it up for every call.
  static func intentMembers(for declaration: StructDeclSyntax, access: String, canStoreStatics: Bool) -> [DeclSyntax] {
    let methods = declaration.memberBlock.members.compactMap { member -> IntentMethod? in
      guard let function = member.decl.as(FunctionDeclSyntax.self),
        function.attributes.contains(where: { $0.as(AttributeSyntax.self)?.attributeName.trimmedDescription == "Intent" }),
        IntentMethod.problems(of: function).isEmpty
      else { return nil }
      return IntentMethod(function)
    }
    guard !methods.isEmpty else { return [] }
    let descriptors = methods.map { method -> String in
      let parameters = method.parameters.map { parameter -> String in
        let defaultPart = parameter.defaultValue.map { ", default: { \($0) }" } ?? ""
        return "Arbor._IntentParameter(\(parameter.key.literal), \(parameter.type).self\(defaultPart))"
      }
      let arguments = method.parameters.map { parameter -> String in
        let value = "arguments.value(\(parameter.key.literal), \(parameter.type).self\(parameter.defaultValue.map { ", default: { \($0) }" } ?? ""))"
        return parameter.label.map { "\($0): \(value)" } ?? value
      }
      let call = "\(method.isAsync ? "await " : "")model.\(method.name)(\(arguments.joined(separator: ", ")))"
      // A synchronous intent gets `perform:`, so that a daemon can run it without a task.
      return """
        Arbor._IntentDescriptor<Self>(
          name: \(method.name.literal),
          parameters: [\(parameters.joined(separator: ", "))],
          result: Arbor._intentResult(\(method.resultType).self),
          \(method.isAsync ? "call" : "perform"): { model, arguments in
            try arguments.result(\(call))
          }
        )
        """
    }
    guard canStoreStatics else {
      return [
        """
        \(raw: access)static var _$intents: [Arbor._IntentDescriptor<Self>] {
          [
            \(raw: descriptors.joined(separator: ",\n"))
          ]
        }
        """
      ]
    }
    let typeName = declaration.name.trimmedDescription
    return [
      """
      private static let _$intentTable: [Arbor._IntentDescriptor<\(raw: typeName)>] = [
        \(raw: descriptors.joined(separator: ",\n"))
      ]
      """,
      """
      \(raw: access)static var _$intents: [Arbor._IntentDescriptor<Self>] {
        _$intentTable
      }
      """,
    ]
  }
}

extension ModelMacro {
  /// Whether a static stored property may be declared in `declaration`: not in a generic
  /// type, not inside a function or an extension (whose type may be generic).
  static func canStoreStatics(_ declaration: StructDeclSyntax, in context: some MacroExpansionContext) -> Bool {
    guard declaration.genericParameterClause == nil else { return false }
    for enclosing in context.lexicalContext {
      if let outer = enclosing.as(StructDeclSyntax.self), outer.genericParameterClause == nil { continue }
      if let outer = enclosing.as(EnumDeclSyntax.self), outer.genericParameterClause == nil { continue }
      if let outer = enclosing.as(ClassDeclSyntax.self), outer.genericParameterClause == nil { continue }
      return false
    }
    return true
  }
}
