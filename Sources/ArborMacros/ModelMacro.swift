import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// `@Model`: routes a struct's stored `var`s through a context and makes it a `Model`.
public struct ModelMacro {}

extension ModelMacro: MemberMacro {
  public static func expansion(
    of node: AttributeSyntax,
    providingMembersOf declaration: some DeclGroupSyntax,
    conformingTo protocols: [TypeSyntax],
    in context: some MacroExpansionContext
  ) throws -> [DeclSyntax] {
    guard let structDecl = declaration.as(StructDeclSyntax.self) else {
      context.diagnose(Diagnostic(node: node, message: ModelDiagnostic.modelNotStruct))
      return []
    }
    diagnoseUnsupportedProperties(in: structDecl, context: context)
    let properties = structDecl.trackedProperties
    diagnoseInitializerOrder(in: structDecl, properties: properties, context: context)

    let access = structDecl.accessPrefix
    var members: [DeclSyntax] = []

    if properties.isEmpty {
      members.append("\(raw: access)let _$modelContext = Arbor.ModelContext<Self>()")
      members.append("\(raw: access)func _$withContext(_ context: Arbor.ModelContext<Self>) -> Self { self }")
    } else {
      members.append("\(raw: access)var _$modelContext: Arbor.ModelContext<Self>")
      members.append(
        """
        \(raw: access)func _$withContext(_ context: Arbor.ModelContext<Self>) -> Self {
          var copy = self
          copy._$modelContext = context
          return copy
        }
        """)
    }

    let fields = properties.map { property -> String in
      if let type = property.type {
        return "var \(property.name): Optional<\(type.trimmedDescription)> = nil"
      }
      return "var \(property.name) = Arbor._$uninitialized { \(property.initializer?.trimmedDescription ?? "()") }"
    }
    members.append(
      """
      \(raw: access)struct _$State: Sendable {
        \(raw: fields.joined(separator: "\n"))
        init() {}
      }
      """)
    members.append("\(raw: access)static func _$emptyState() -> _$State { _$State() }")
    members.append("\(raw: access)static var _$propertyCount: Int { \(raw: properties.count) }")

    let nameCases = properties.enumerated().map { "case \($0.offset): return \($0.element.name.literal)" }
    members.append(
      """
      \(raw: access)static func _$propertyName(_ index: Int) -> String {
        switch index {
        \(raw: nameCases.joined(separator: "\n"))
        default: return "#\\(index)"
        }
      }
      """)

    let visitCases = properties.enumerated().map { "case \($0.offset): visitor.visit(state.\($0.element.name))" }
    members.append(
      """
      \(raw: access)static func _$visit(_ state: _$State, property: Int, into visitor: inout Arbor.ModelVisitor) {
        switch property {
        \(raw: visitCases.joined(separator: "\n"))
        default: break
        }
      }
      """)

    let indexChecks = properties.enumerated().map { "if keyPath == \\Self.\($0.element.name) { return \($0.offset) }" }
    members.append(
      """
      \(raw: access)static func _$propertyIndex(of keyPath: PartialKeyPath<Self>) -> Int? {
        \(raw: indexChecks.joined(separator: "\n"))
        return nil
      }
      """)

    if !structDecl.declaresMember(named: "id") {
      members.append("\(raw: access)var id: Arbor.ModelID { _$modelContext.id }")
    }
    return members
  }

  private static func diagnoseUnsupportedProperties(in declaration: StructDeclSyntax, context: some MacroExpansionContext) {
    for member in declaration.memberBlock.members {
      guard let variable = member.decl.as(VariableDeclSyntax.self), variable.isVar, !variable.isStatic,
        !variable.hasAttribute(named: "ModelIgnored")
      else { continue }
      if variable.isLazy {
        context.diagnose(Diagnostic(node: variable, message: ModelDiagnostic.lazyProperty))
      } else if variable.hasObservers {
        context.diagnose(Diagnostic(node: variable, message: ModelDiagnostic.propertyObservers))
      } else if variable.bindings.count > 1 {
        context.diagnose(Diagnostic(node: variable, message: ModelDiagnostic.multipleBindings))
      }
    }
  }

  /// A custom initializer must initialize the first tracked `var` (the one that creates the
  /// context) before any other tracked `var`, unless that first one has a default value.
  private static func diagnoseInitializerOrder(
    in declaration: StructDeclSyntax, properties: [TrackedProperty], context: some MacroExpansionContext
  ) {
    guard let first = properties.first, first.initializer == nil else { return }
    let names = Set(properties.map(\.name))
    for member in declaration.memberBlock.members {
      guard let initializer = member.decl.as(InitializerDeclSyntax.self), let body = initializer.body else { continue }
      for item in body.statements {
        guard let assigned = assignedProperty(in: item), names.contains(assigned.name) else { continue }
        if assigned.name != first.name {
          context.diagnose(
            Diagnostic(
              node: assigned.node,
              message: CustomDiagnostic(
                message: "@Model creates the model's storage when its first stored 'var' ('\(first.name)') is initialized; assign '\(first.name)' before '\(assigned.name)' in this initializer"
              )))
        }
        break
      }
    }
  }

  private static func assignedProperty(in item: CodeBlockItemSyntax) -> (name: String, node: Syntax)? {
    guard let sequence = item.item.as(SequenceExprSyntax.self) ?? item.item.as(ExpressionStmtSyntax.self)?.expression.as(SequenceExprSyntax.self)
    else {
      if let infix = item.item.as(InfixOperatorExprSyntax.self), infix.operator.is(AssignmentExprSyntax.self) {
        return target(of: infix.leftOperand).map { ($0, Syntax(infix)) }
      }
      return nil
    }
    let elements = Array(sequence.elements)
    guard elements.count >= 3, elements[1].is(AssignmentExprSyntax.self) else { return nil }
    return target(of: elements[0]).map { ($0, Syntax(sequence)) }
  }

  private static func target(of expression: ExprSyntax) -> String? {
    if let member = expression.as(MemberAccessExprSyntax.self),
      let base = member.base?.as(DeclReferenceExprSyntax.self), base.baseName.tokenKind == .keyword(.self)
    {
      return member.declName.baseName.text
    }
    if let reference = expression.as(DeclReferenceExprSyntax.self) {
      return reference.baseName.text
    }
    return nil
  }
}

extension ModelMacro: MemberAttributeMacro {
  public static func expansion(
    of node: AttributeSyntax,
    attachedTo declaration: some DeclGroupSyntax,
    providingAttributesFor member: some DeclSyntaxProtocol,
    in context: some MacroExpansionContext
  ) throws -> [AttributeSyntax] {
    guard declaration.is(StructDeclSyntax.self),
      let variable = member.as(VariableDeclSyntax.self),
      let name = variable.bindings.first?.pattern.as(IdentifierPatternSyntax.self)?.identifier.text,
      let index = declaration.trackedProperties.firstIndex(where: { $0.name == name && $0.declaration.id == variable.id })
        ?? declaration.trackedProperties.firstIndex(where: { $0.name == name })
    else { return [] }
    if index == 0 {
      return ["@Arbor._ModelTracked(0, initializesContext: true)"]
    }
    return ["@Arbor._ModelTracked(\(raw: index))"]
  }
}

extension ModelMacro: ExtensionMacro {
  public static func expansion(
    of node: AttributeSyntax,
    attachedTo declaration: some DeclGroupSyntax,
    providingExtensionsOf type: some TypeSyntaxProtocol,
    conformingTo protocols: [TypeSyntax],
    in context: some MacroExpansionContext
  ) throws -> [ExtensionDeclSyntax] {
    guard declaration.is(StructDeclSyntax.self), !protocols.isEmpty else { return [] }
    return [try ExtensionDeclSyntax("extension \(type.trimmed): Arbor.Model {}")]
  }
}
