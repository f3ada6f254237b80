import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// The memberwise initializer of a model, written out by the macro.
///
/// Swift's own memberwise initializer runs init accessors in declaration order, before the
/// context (a member the macro appends last) exists. An initializer written in the body runs
/// the context's default value first, so the macro writes one with the same parameters
/// Swift would synthesize: every stored property without a fixed value, in declaration
/// order, with default values where the declaration has one (`nil` for a `var` of type `T?`).
extension ModelMacro {
  static func memberwiseInitializer(for declaration: StructDeclSyntax, context: some MacroExpansionContext) -> DeclSyntax? {
    let declaresInitializer = declaration.memberBlock.members.contains { $0.decl.is(InitializerDeclSyntax.self) }
    guard !declaresInitializer else { return nil }

    var parameters: [String] = []
    var assignments: [String] = []
    for member in declaration.memberBlock.members {
      guard let variable = member.decl.as(VariableDeclSyntax.self), !variable.isStatic, !variable.isComputed,
        !variable.isLazy, !variable.hasAttribute(named: "ModelDependency")
      else { continue }
      for binding in variable.bindings {
        guard let name = binding.pattern.as(IdentifierPatternSyntax.self)?.identifier.trimmed else { continue }
        let initializer = binding.initializer?.value.trimmed
        if !variable.isVar && initializer != nil { continue }  // a `let` with a value is fixed
        let annotated = binding.typeAnnotation.map { ClosureType.parameterType($0.type.trimmed) }
        guard let type = annotated ?? initializer.flatMap(inferredType) else {
          context.diagnose(
            Diagnostic(
              node: binding,
              message: CustomDiagnostic(
                message: "@Model writes the memberwise initializer and cannot infer the type of '\(name.text)'; add a type annotation, or declare an initializer"
              )))
          return nil
        }
        var parameter = "\(name.text): \(type)"
        if let initializer {
          parameter += " = \(initializer.description)"
        } else if variable.isVar, let written = binding.typeAnnotation?.type,
          written.is(OptionalTypeSyntax.self) || written.is(ImplicitlyUnwrappedOptionalTypeSyntax.self)
        {
          parameter += " = nil"  // as Swift does for a `var` of type `T?` without a value
        }
        parameters.append(parameter)
        assignments.append("self.\(name.text) = \(name.text)")
      }
    }
    return """
      init(\(raw: parameters.joined(separator: ", "))) {
        \(raw: assignments.joined(separator: "\n"))
      }
      """
  }

  /// The type of a value expression, when it can be read off the syntax: literals and
  /// calls of a type's initializer (`CounterModel()`, `[Item]()`, `Set<Int>()`).
  static func inferredType(of expression: ExprSyntax) -> String? {
    if expression.is(IntegerLiteralExprSyntax.self) { return "Int" }
    if expression.is(FloatLiteralExprSyntax.self) { return "Double" }
    if expression.is(StringLiteralExprSyntax.self) { return "String" }
    if expression.is(BooleanLiteralExprSyntax.self) { return "Bool" }
    if let prefix = expression.as(PrefixOperatorExprSyntax.self), prefix.operator.text == "-" {
      return inferredType(of: prefix.expression)
    }
    if let call = expression.as(FunctionCallExprSyntax.self) {
      let callee = call.calledExpression
      if callee.is(ArrayExprSyntax.self) || callee.is(DictionaryExprSyntax.self) || callee.is(GenericSpecializationExprSyntax.self) {
        return callee.trimmedDescription
      }
      if let reference = callee.as(DeclReferenceExprSyntax.self), reference.baseName.text.first?.isUppercase == true {
        return reference.trimmedDescription
      }
      if let member = callee.as(MemberAccessExprSyntax.self), member.base != nil,
        member.declName.baseName.text.first?.isUppercase == true
      {
        return member.trimmedDescription
      }
    }
    return nil
  }
}
