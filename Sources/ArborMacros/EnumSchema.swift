import SwiftSyntax

/// The JSON Schema of an enum as Swift's synthesized `Codable` writes it:
/// `{"case": {"label": …, "_0": …}}`, an empty object for a case without values. Emitted as
/// an expression that calls `Arbor._enumSchema`, with each associated value's schema taken
/// from its declared type.
enum EnumSchema {
  static func expression(for declaration: EnumDeclSyntax, definitions: String) -> String {
    var cases: [String] = []
    for member in declaration.memberBlock.members {
      guard let caseDecl = member.decl.as(EnumCaseDeclSyntax.self) else { continue }
      for element in caseDecl.elements {
        let values = (element.parameterClause?.parameters ?? []).enumerated().map { offset, parameter -> String in
          let key = parameter.firstName.map { $0.text == "_" ? "_\(offset)" : $0.text } ?? "_\(offset)"
          let type = parameter.type.trimmedDescription
          let optional = parameter.type.is(OptionalTypeSyntax.self)
          return "(\(key.literal), \(definitions).schema(for: (\(type)).self), \(optional))"
        }
        cases.append("(\(element.name.text.literal), [\(values.joined(separator: ", "))])")
      }
    }
    return "Arbor._enumSchema([\(cases.joined(separator: ", "))])"
  }
}

extension ModelMacro {
  /// The schema of the model's nested `enum Event`, when it declares one.
  static func eventSchemaMembers(for declaration: StructDeclSyntax, access: String) -> [DeclSyntax] {
    guard
      let event = declaration.memberBlock.members.lazy.compactMap({ $0.decl.as(EnumDeclSyntax.self) })
        .first(where: { $0.name.text == "Event" })
    else { return [] }
    return [
      """
      \(raw: access)static func _$eventSchema(in definitions: inout Arbor._JSONSchemaDefinitions) -> Arbor._JSONSchema? {
        Arbor._eventSchema(Event.self, \(raw: EnumSchema.expression(for: event, definitions: "definitions")))
      }
      """
    ]
  }
}
