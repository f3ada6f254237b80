import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// `@ModelContainer`: lets Arbor find the models inside an enum or a struct.
///
/// Paths into an enum follow Swift's synthesized `Codable` layout: the case name, then the
/// associated value's label, or `_0`, `_1`, … for unlabeled ones.
public struct ModelContainerMacro {}

extension ModelContainerMacro: MemberMacro {
  public static func expansion(
    of node: AttributeSyntax,
    providingMembersOf declaration: some DeclGroupSyntax,
    conformingTo protocols: [TypeSyntax],
    in context: some MacroExpansionContext
  ) throws -> [DeclSyntax] {
    let access = declaration.accessPrefix
    if let enumDecl = declaration.as(EnumDeclSyntax.self) {
      // Swift infers no schema for an enum with associated values: describe its cases.
      let name = enumDecl.name.text
      let schema: DeclSyntax = """
        \(raw: access)static func jsonSchema(in definitions: inout Arbor._JSONSchemaDefinitions) -> Arbor._JSONSchema {
          definitions.define(\(raw: name.literal)) { definitions in
            \(raw: EnumSchema.expression(for: enumDecl, definitions: "definitions"))
          }
        }
        """
      return [visitFunction(access: access, body: enumBody(enumDecl)), schema]
    }
    if let structDecl = declaration.as(StructDeclSyntax.self) {
      return [visitFunction(access: access, body: structBody(structDecl))]
    }
    context.diagnose(Diagnostic(node: node, message: ModelDiagnostic.containerNotEnumOrStruct))
    return []
  }

  private static func visitFunction(access: String, body: String) -> DeclSyntax {
    """
    \(raw: access)func _$visit(_ visitor: inout Arbor.ModelVisitor) {
      \(raw: body)
    }
    """
  }

  private static func structBody(_ declaration: StructDeclSyntax) -> String {
    var lines: [String] = []
    for member in declaration.memberBlock.members {
      guard let variable = member.decl.as(VariableDeclSyntax.self), !variable.isStatic, !variable.isComputed else { continue }
      for binding in variable.bindings {
        guard let name = binding.pattern.as(IdentifierPatternSyntax.self)?.identifier.text else { continue }
        lines.append("visitor.withComponent(.property(\(name.literal))) { $0.visit(self.\(name)) }")
      }
    }
    return lines.joined(separator: "\n")
  }

  private static func enumBody(_ declaration: EnumDeclSyntax) -> String {
    var cases: [String] = []
    for member in declaration.memberBlock.members {
      guard let caseDecl = member.decl.as(EnumCaseDeclSyntax.self) else { continue }
      for element in caseDecl.elements {
        let name = element.name.text
        guard let parameters = element.parameterClause?.parameters, !parameters.isEmpty else {
          cases.append("case .\(name): break")
          continue
        }
        var bindings: [String] = []
        var visits: [String] = []
        for (offset, parameter) in parameters.enumerated() {
          let key = parameter.firstName.map { $0.text == "_" ? "_\(offset)" : $0.text } ?? "_\(offset)"
          bindings.append("let value\(offset)")
          visits.append("$0.withComponent(.property(\(key.literal))) { $0.visit(value\(offset)) }")
        }
        cases.append(
          "case .\(name)(\(bindings.joined(separator: ", "))):\n  visitor.withComponent(.property(\(name.literal))) {\n    \(visits.joined(separator: "\n    "))\n  }"
        )
      }
    }
    guard !cases.isEmpty else { return "" }
    return "switch self {\n\(cases.joined(separator: "\n"))\n}"
  }
}

extension ModelContainerMacro: ExtensionMacro {
  public static func expansion(
    of node: AttributeSyntax,
    attachedTo declaration: some DeclGroupSyntax,
    providingExtensionsOf type: some TypeSyntaxProtocol,
    conformingTo protocols: [TypeSyntax],
    in context: some MacroExpansionContext
  ) throws -> [ExtensionDeclSyntax] {
    guard declaration.is(EnumDeclSyntax.self) || declaration.is(StructDeclSyntax.self), !protocols.isEmpty else { return [] }
    // Codable is synthesized by Swift in this extension: a container is state, like a model.
    let names = protocols.compactMap { type -> String? in
      switch type.trimmedDescription {
      case "ModelContainer": return "Arbor.ModelContainer"
      case "JSONSchemaDescribing": return declaration.is(EnumDeclSyntax.self) ? "Arbor._JSONSchemaDescribing" : nil
      default: return type.trimmedDescription
      }
    }
    return [try ExtensionDeclSyntax("extension \(type.trimmed): \(raw: names.joined(separator: ", ")) {}")]
  }
}

/// `@ModelIgnored`: leaves a stored `var` untracked. Expands to nothing; @Model reads it.
public struct ModelIgnoredMacro: PeerMacro {
  public static func expansion(
    of node: AttributeSyntax,
    providingPeersOf declaration: some DeclSyntaxProtocol,
    in context: some MacroExpansionContext
  ) throws -> [DeclSyntax] {
    []
  }
}

/// `@ModelDependency`: a computed property reading the dependency keyed by its type.
public struct ModelDependencyMacro: AccessorMacro {
  public static func expansion(
    of node: AttributeSyntax,
    providingAccessorsOf declaration: some DeclSyntaxProtocol,
    in context: some MacroExpansionContext
  ) throws -> [AccessorDeclSyntax] {
    guard let variable = declaration.as(VariableDeclSyntax.self),
      let type = variable.bindings.first?.typeAnnotation?.type.trimmed
    else {
      context.diagnose(
        Diagnostic(node: node, message: CustomDiagnostic(message: "@ModelDependency needs the dependency's type: write '@ModelDependency var name: Type'")))
      return []
    }
    return [
      """
      get {
        node[\(type).self]
      }
      """
    ]
  }
}
