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
    diagnoseClosuresThatAreNotSendable(in: structDecl, context: context)
    let properties = structDecl.trackedProperties

    let access = structDecl.accessPrefix
    var members: [DeclSyntax] = []

    members.append("\(raw: access)var _$modelContext = Arbor.ModelContext<Self>()")
    members.append(
      """
      \(raw: access)func _$withContext(_ context: Arbor.ModelContext<Self>) -> Self {
        var copy = self
        copy._$modelContext = context
        return copy
      }
      """)
    if let initializer = memberwiseInitializer(for: structDecl, context: context) {
      members.append(initializer)
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
    members.append("\(raw: access)static var _$typeName: String { \(raw: structDecl.name.text.literal) }")
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

    let visitCases = properties.enumerated().map { offset, property in
      property.holdsNoModels
        ? "case \(offset): break"
        : "case \(offset): visitor.visit(state.\(property.name))"
    }
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
    members.append(contentsOf: codingMembers(for: structDecl, access: access, context: context))
    members.append(contentsOf: intentMembers(for: structDecl, access: access, canStoreStatics: canStoreStatics(structDecl, in: context)))
    members.append(contentsOf: eventSchemaMembers(for: structDecl, access: access))
    return members
  }

  private static func diagnoseUnsupportedProperties(in declaration: StructDeclSyntax, context: some MacroExpansionContext) {
    for member in declaration.memberBlock.members {
      guard let variable = member.decl.as(VariableDeclSyntax.self), variable.isVar, !variable.isStatic,
        !variable.hasAttribute(named: "ModelIgnored"), !variable.hasAttribute(named: "ModelDependency")
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
