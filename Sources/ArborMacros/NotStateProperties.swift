import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// A function type as written in a declaration: `@Sendable (Int, String) -> Void`,
/// `(@Sendable () async -> Void)?`, `Optional<() -> Void>`.
///
/// The macro sees only syntax, so a closure behind a type alias is not recognised (its
/// `let` is then treated as any other `let`; `@ModelIgnored` keeps it out of the state).
struct ClosureType {
  /// The function type itself, inside any parentheses, optional and attributes.
  let function: FunctionTypeSyntax
  /// The attributes written on it (`@Sendable`, a global actor), if any.
  let attributes: AttributeListSyntax?
  /// Whether the declared type is an optional of the function type.
  let isOptional: Bool

  init?(_ type: TypeSyntax) {
    guard let found = Self.find(type, isOptional: false, attributes: nil) else { return nil }
    self = found
  }

  private init(function: FunctionTypeSyntax, attributes: AttributeListSyntax?, isOptional: Bool) {
    self.function = function
    self.attributes = attributes
    self.isOptional = isOptional
  }

  private static func find(_ type: TypeSyntax, isOptional: Bool, attributes: AttributeListSyntax?) -> ClosureType? {
    if let function = type.as(FunctionTypeSyntax.self) {
      return ClosureType(function: function, attributes: attributes, isOptional: isOptional)
    }
    if let attributed = type.as(AttributedTypeSyntax.self) {
      // `@Sendable (() -> Void)`: the attributes apply to the function inside.
      let all = (attributes.map(Array.init) ?? []) + Array(attributed.attributes)
      return find(attributed.baseType, isOptional: isOptional, attributes: AttributeListSyntax(all))
    }
    if let tuple = type.as(TupleTypeSyntax.self), tuple.elements.count == 1, let element = tuple.elements.first,
      element.firstName == nil, element.ellipsis == nil
    {
      return find(element.type, isOptional: isOptional, attributes: attributes)
    }
    // An optional's attributes, if any, were not the function's.
    if let optional = type.as(OptionalTypeSyntax.self) {
      return find(optional.wrappedType, isOptional: true, attributes: nil)
    }
    if let optional = type.as(ImplicitlyUnwrappedOptionalTypeSyntax.self) {
      return find(optional.wrappedType, isOptional: true, attributes: nil)
    }
    if let identifier = type.as(IdentifierTypeSyntax.self), identifier.name.text == "Optional",
      let arguments = identifier.genericArgumentClause?.arguments, arguments.count == 1,
      case .type(let wrapped) = arguments.first!.argument
    {
      return find(wrapped, isOptional: true, attributes: nil)
    }
    return nil
  }

  /// The type as a parameter of the memberwise initializer: a closure that is not optional
  /// is `@escaping`, written without the parentheses that would hide it from `@escaping`.
  static func parameterType(_ type: TypeSyntax) -> String {
    guard let closure = ClosureType(type), !closure.isOptional else { return type.trimmedDescription }
    let attributes = closure.attributes.map { $0.map(\.trimmedDescription).joined(separator: " ") + " " } ?? ""
    return "@escaping \(attributes)\(closure.function.trimmedDescription)"
  }

  /// Whether the closure is written `@Sendable` or isolated to a global actor (any
  /// attribute counts: the compiler has the last word on what is `Sendable`).
  var mayBeSendable: Bool { !(attributes?.isEmpty ?? true) }

  /// Whether it returns nothing, so that a closure doing nothing is a possible default.
  var returnsVoid: Bool {
    let result = function.returnClause.type
    if let identifier = result.as(IdentifierTypeSyntax.self) { return identifier.name.text == "Void" }
    if let tuple = result.as(TupleTypeSyntax.self) { return tuple.elements.isEmpty }
    return false
  }

  /// A closure literal that does nothing, with one `_` per parameter: `{}`, `{ _, _ in }`.
  var doNothingLiteral: String {
    let count = function.parameters.count
    return count == 0 ? "{}" : "{ " + Array(repeating: "_", count: count).joined(separator: ", ") + " in }"
  }
}

/// A property of a model that is not state and that a restore cannot give a value: a
/// closure `let`, or a `@ModelIgnored let`, without a value of its own and not optional.
/// Its model works in process, but cannot be saved or restored.
struct UnrestorableProperty {
  let name: String
  /// The declaration as the user would write it, without modifiers: `let onFact: (Int) -> Void`.
  let declaration: String
}

extension StructDeclSyntax {
  /// The `let`s that are not state though they have no value of their own: closures (a
  /// function type written in the declaration) and `@ModelIgnored let`s. Each is a
  /// parameter of the memberwise initializer; a restore gives an optional one `nil`.
  var notStateLets: [(name: String, declaration: String, isOptional: Bool)] {
    memberBlock.members.flatMap { member -> [(name: String, declaration: String, isOptional: Bool)] in
      guard let variable = member.decl.as(VariableDeclSyntax.self), !variable.isVar, !variable.isStatic else { return [] }
      let ignored = variable.hasAttribute(named: "ModelIgnored")
      return variable.bindings.compactMap { binding in
        guard binding.initializer == nil,
          let name = binding.pattern.as(IdentifierPatternSyntax.self)?.identifier.text,
          let type = binding.typeAnnotation?.type
        else { return nil }
        let closure = ClosureType(type)
        guard ignored || closure != nil else { return nil }
        let isOptional = closure?.isOptional ?? (type.is(OptionalTypeSyntax.self) || type.is(ImplicitlyUnwrappedOptionalTypeSyntax.self))
        let declaration = (ignored ? "@ModelIgnored " : "") + "let \(name): \(type.trimmedDescription)"
        return (name, declaration, isOptional)
      }
    }
  }

  /// The properties that make this model impossible to restore (see ``UnrestorableProperty``).
  var unrestorableProperties: [UnrestorableProperty] {
    notStateLets.filter { !$0.isOptional }.map { UnrestorableProperty(name: $0.name, declaration: $0.declaration) }
  }
}

extension ModelMacro {
  /// A model is `Sendable`, so every closure it stores must be: a closure type without
  /// attributes is reported on its own line, with a Fix-It that adds `@Sendable`.
  static func diagnoseClosuresThatAreNotSendable(in declaration: StructDeclSyntax, context: some MacroExpansionContext) {
    for member in declaration.memberBlock.members {
      guard let variable = member.decl.as(VariableDeclSyntax.self), !variable.isStatic, !variable.isComputed,
        !variable.hasAttribute(named: "ModelDependency")
      else { continue }
      for binding in variable.bindings {
        guard let name = binding.pattern.as(IdentifierPatternSyntax.self)?.identifier.text,
          let type = binding.typeAnnotation?.type, let closure = ClosureType(type), !closure.mayBeSendable
        else { continue }
        let sendable = TypeSyntax("@Sendable \(closure.function.trimmed)")
          .with(\.leadingTrivia, closure.function.leadingTrivia)
          .with(\.trailingTrivia, closure.function.trailingTrivia)
        context.diagnose(
          Diagnostic(
            node: type,
            message: CustomDiagnostic(
              message: "a model is Sendable, so the closure in '\(name)' must be too: declare it '@Sendable \(closure.function.trimmedDescription)'"
            ),
            fixIt: FixIt(
              message: CustomFixIt(message: "insert '@Sendable'"),
              changes: [.replace(oldNode: Syntax(closure.function), newNode: Syntax(sendable))]
            )
          ))
      }
    }
  }

  /// An ignored `var` is not state: a restored model needs a value for it, so one without a
  /// default must be optional. The Fix-It gives a closure that returns nothing a default
  /// that does nothing, and makes anything else optional.
  static func diagnoseIgnoredWithoutDefault(in declaration: StructDeclSyntax, context: some MacroExpansionContext) {
    for member in declaration.memberBlock.members {
      guard let variable = member.decl.as(VariableDeclSyntax.self), variable.isVar, !variable.isStatic,
        !variable.isComputed, variable.hasAttribute(named: "ModelIgnored")
      else { continue }
      for binding in variable.bindings where binding.initializer == nil {
        guard let annotation = binding.typeAnnotation else { continue }
        let type = annotation.type
        let closure = ClosureType(type)
        let optional = closure?.isOptional ?? (type.is(OptionalTypeSyntax.self) || type.is(ImplicitlyUnwrappedOptionalTypeSyntax.self))
        guard !optional else { continue }
        let fixIt: FixIt
        if let closure, closure.returnsVoid {
          let fixed = binding
            .with(\.typeAnnotation, annotation.with(\.trailingTrivia, []))
            .with(
              \.initializer,
              InitializerClauseSyntax(
                equal: .equalToken(leadingTrivia: .space, trailingTrivia: .space),
                value: ExprSyntax("\(raw: closure.doNothingLiteral)"),
                trailingTrivia: annotation.trailingTrivia
              ))
          fixIt = FixIt(
            message: CustomFixIt(message: "give it a default that does nothing: '= \(closure.doNothingLiteral)'"),
            changes: [.replace(oldNode: Syntax(binding), newNode: Syntax(fixed))]
          )
        } else {
          let simple = type.is(IdentifierTypeSyntax.self) || type.is(MemberTypeSyntax.self) || type.is(ArrayTypeSyntax.self)
            || type.is(DictionaryTypeSyntax.self) || type.is(TupleTypeSyntax.self)
          let wrapped = simple ? type.trimmedDescription : "(\(type.trimmedDescription))"
          let optionalType = TypeSyntax("\(raw: wrapped)?")
            .with(\.leadingTrivia, type.leadingTrivia)
            .with(\.trailingTrivia, type.trailingTrivia)
          fixIt = FixIt(
            message: CustomFixIt(message: "make it optional: a restored model gets nil"),
            changes: [.replace(oldNode: Syntax(type), newNode: Syntax(optionalType))]
          )
        }
        context.diagnose(Diagnostic(node: binding, message: ModelDiagnostic.ignoredWithoutDefault, fixIt: fixIt))
      }
    }
  }
}
