import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// The `Codable` members of a model: its state is every tracked property and every `let`
/// without a fixed value, by name, plus the model's `id`. A closure `let` and a
/// `@ModelIgnored let` are not state (see `NotStateProperties.swift`).
///
/// Which properties can be encoded is known only to the type checker, so the generated code
/// calls overloads in `Arbor._StateEncodingContainer` / `_StateDecodingContainer`: a
/// `Codable` value is encoded; a value that is not is skipped when it has a default (and
/// gets that default on decode), and is a compile-time error when it has none.
///
/// A model with a `let` that is not state, has no value and is not optional cannot be
/// restored: its `init(from:)` refuses, and it lists those `let`s in
/// `_$unrestorableProperties`, which snapshots and restores check for the whole tree.
extension ModelMacro {
  static func codingMembers(for declaration: StructDeclSyntax, access: String, context: some MacroExpansionContext) -> [DeclSyntax] {
    let properties = declaration.trackedProperties
    let lets = declaration.stateLets
    let declaresID = declaration.declaresMember(named: "id")
    let notStateLets = declaration.notStateLets
    let unrestorable = declaration.unrestorableProperties
    diagnoseIgnoredWithoutDefault(in: declaration, context: context)

    var encodeLines: [String] = []
    if !declaresID { encodeLines.append("try container.encodeID(_$modelContext.id)") }
    if !properties.isEmpty { encodeLines.append("let state = _$modelContext._$stateForEncoding()") }
    for property in properties {
      encodeLines.append("try container.encode(state.\(property.name), forKey: \(property.name.literal))")
    }
    for stateLet in lets {
      encodeLines.append("try container.encode(self.\(stateLet.name), forKey: \(stateLet.name.literal))")
    }

    // Everything that can throw happens before `self` is touched: a throw out of a
    // partially initialized model would have to destroy its default context, a path on
    // which Swift's definite initialization with init accessors is not reliable.
    var decodeLines: [String] = []
    for stateLet in lets {
      decodeLines.append("let \(stateLet.name) = try container.decode(\(stateLet.type).self, forKey: \(stateLet.name.literal))")
    }
    decodeLines.append(properties.isEmpty ? "let state = _$State()" : "var state = _$State()")
    for property in properties {
      if let initializer = property.initializer {
        decodeLines.append(
          "state.\(property.name) = try container.decode(state.\(property.name), forKey: \(property.name.literal), default: { \(initializer.trimmedDescription) })"
        )
      } else {
        decodeLines.append("state.\(property.name) = try container.decode(state.\(property.name), forKey: \(property.name.literal))")
      }
    }
    decodeLines.append("let context = try container.context(Self.self, state: state, decodesID: \(!declaresID))")
    let required = properties.filter { $0.initializer == nil }
    let restoreArguments = ["_$restoring: context"] + lets.map { "\($0.name): \($0.name)" } + required.map { "\($0.name): state.\($0.name)!" }
    decodeLines.append("self.init(\(restoreArguments.joined(separator: ", ")))")

    // The initializer that puts a decoded model together; it cannot fail.
    let restoreParameters = ["_$restoring context: Arbor.ModelContext<Self>"]
      + lets.map { "\($0.name): \($0.type)" }
      + required.map { "\($0.name): \(typeName(of: $0))" }
    var restoreLines = ["self._$modelContext = context"]
    restoreLines += lets.map { "self.\($0.name) = \($0.name)" }
    // A closure or ignored `let` is not state: a restored model has none (nil).
    restoreLines += notStateLets.map { "self.\($0.name) = nil" }
    // Definite initialization asks for every tracked property without a default; its init
    // accessor writes the same value into the context just installed.
    restoreLines += required.map { "self.\($0.name) = \($0.name)" }

    var schemaLines: [String] = []
    if !declaresID { schemaLines.append("schema.addID()") }
    for property in properties {
      schemaLines.append("schema.add(\(property.name.literal), \\_$State.\(property.name), hasDefault: \(property.initializer != nil), in: &definitions)")
    }
    for stateLet in lets {
      schemaLines.append("schema.add(\(stateLet.name.literal), \(stateLet.type).self, in: &definitions)")
    }

    var members: [DeclSyntax] = [
      """
      \(raw: access)static func _$stateSchema(in definitions: inout Arbor._JSONSchemaDefinitions) -> Arbor._JSONSchema {
        var schema = Arbor._StateSchema()
        \(raw: schemaLines.joined(separator: "\n"))
        return schema.build()
      }
      """,
      """
      \(raw: access)func encode(to encoder: any Encoder) throws {
        var container = Arbor._StateEncodingContainer(encoder)
        \(raw: encodeLines.joined(separator: "\n"))
      }
      """,
    ]
    if unrestorable.isEmpty {
      members.append(
        """
        \(raw: access)init(from decoder: any Decoder) throws {
          let container = try Arbor._StateDecodingContainer(decoder)
          \(raw: decodeLines.joined(separator: "\n"))
        }
        """)
      members.append(
        """
        private init(\(raw: restoreParameters.joined(separator: ", "))) {
          \(raw: restoreLines.joined(separator: "\n"))
        }
        """)
    } else {
      // Nothing to decode the state into: a restore has no value for these `let`s.
      let entries = unrestorable.map { "(\($0.name.literal), \($0.declaration.literal))" }
      members.append(
        """
        \(raw: access)static var _$unrestorableProperties: [(name: String, declaration: String)] {
          [\(raw: entries.joined(separator: ", "))]
        }
        """)
      members.append(
        """
        \(raw: access)init(from decoder: any Decoder) throws {
          self = try Arbor._refuseRestoring(Self.self, from: decoder)
        }
        """)
    }
    return members
  }

  /// The declared type of a tracked property without a default (annotated: the memberwise
  /// initializer already requires that), or the type read off its state field.
  private static func typeName(of property: TrackedProperty) -> String {
    property.type?.trimmedDescription ?? "_"
  }
}

/// A `let` of a model that is part of its state: one without a fixed value.
struct StateLet {
  let name: String
  let type: String
}

extension StructDeclSyntax {
  /// The `let`s without an initial value that are state (not a closure, not
  /// `@ModelIgnored`), in declaration order.
  var stateLets: [StateLet] {
    memberBlock.members.flatMap { member -> [StateLet] in
      guard let variable = member.decl.as(VariableDeclSyntax.self), !variable.isVar, !variable.isStatic,
        !variable.hasAttribute(named: "ModelIgnored")
      else { return [] }
      return variable.bindings.compactMap { binding in
        guard binding.initializer == nil,
          let name = binding.pattern.as(IdentifierPatternSyntax.self)?.identifier.text,
          let type = binding.typeAnnotation?.type, ClosureType(type) == nil
        else { return nil }
        return StateLet(name: name, type: type.trimmedDescription)
      }
    }
  }
}
