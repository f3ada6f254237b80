import Foundation
import SwiftSyntax

/// A stored `var` of a model that becomes a tracked property.
struct TrackedProperty {
  let name: String
  let type: TypeSyntax?
  let initializer: ExprSyntax?
  let declaration: VariableDeclSyntax
}

extension TrackedProperty {
  /// Standard-library value types that can never hold a model.
  static let plainTypeNames: Set<String> = [
    "Int", "Int8", "Int16", "Int32", "Int64", "UInt", "UInt8", "UInt16", "UInt32", "UInt64",
    "Double", "Float", "Bool", "String", "Character", "Date", "UUID", "URL", "Data", "Decimal",
  ]

  /// True when the declaration shows the property can hold no model (a literal default, or
  /// a standard value type, optional or in an array), so visiting it can be skipped.
  var holdsNoModels: Bool {
    if let type { return Self.isPlain(type) }
    guard let initializer else { return false }
    return initializer.is(IntegerLiteralExprSyntax.self) || initializer.is(FloatLiteralExprSyntax.self)
      || initializer.is(StringLiteralExprSyntax.self) || initializer.is(BooleanLiteralExprSyntax.self)
      || (initializer.as(PrefixOperatorExprSyntax.self)?.expression.is(IntegerLiteralExprSyntax.self) ?? false)
  }

  static func isPlain(_ type: TypeSyntax) -> Bool {
    if let identifier = type.as(IdentifierTypeSyntax.self), identifier.genericArgumentClause == nil {
      return plainTypeNames.contains(identifier.name.text)
    }
    if let optional = type.as(OptionalTypeSyntax.self) { return isPlain(optional.wrappedType) }
    if let array = type.as(ArrayTypeSyntax.self) { return isPlain(array.element) }
    if let dictionary = type.as(DictionaryTypeSyntax.self) { return isPlain(dictionary.key) && isPlain(dictionary.value) }
    return false
  }
}

extension VariableDeclSyntax {
  var isStatic: Bool {
    modifiers.contains { $0.name.tokenKind == .keyword(.static) || $0.name.tokenKind == .keyword(.class) }
  }

  var isLazy: Bool {
    modifiers.contains { $0.name.tokenKind == .keyword(.lazy) }
  }

  var isVar: Bool { bindingSpecifier.tokenKind == .keyword(.var) }

  func hasAttribute(named name: String) -> Bool {
    attributes.contains { element in
      guard case .attribute(let attribute) = element else { return false }
      return attribute.attributeName.trimmedDescription == name
    }
  }

  /// True when the binding is computed (has a getter or other accessors besides observers).
  var isComputed: Bool {
    guard let binding = bindings.first, let accessorBlock = binding.accessorBlock else { return false }
    switch accessorBlock.accessors {
    case .getter: return true
    case .accessors(let accessors):
      return accessors.contains { accessor in
        let kind = accessor.accessorSpecifier.tokenKind
        return kind != .keyword(.willSet) && kind != .keyword(.didSet)
      }
    }
  }

  /// True when the binding has `willSet` or `didSet`.
  var hasObservers: Bool {
    guard let binding = bindings.first, let accessorBlock = binding.accessorBlock,
      case .accessors(let accessors) = accessorBlock.accessors
    else { return false }
    return accessors.contains { accessor in
      let kind = accessor.accessorSpecifier.tokenKind
      return kind == .keyword(.willSet) || kind == .keyword(.didSet)
    }
  }
}

extension DeclGroupSyntax {
  /// The stored `var`s that @Model tracks, in declaration order.
  var trackedProperties: [TrackedProperty] {
    memberBlock.members.compactMap { member in
      guard let variable = member.decl.as(VariableDeclSyntax.self),
        variable.isVar, !variable.isStatic, !variable.isLazy, !variable.isComputed, !variable.hasObservers,
        !variable.hasAttribute(named: "ModelIgnored"), !variable.hasAttribute(named: "ModelDependency"),
        variable.bindings.count == 1,
        let binding = variable.bindings.first,
        let pattern = binding.pattern.as(IdentifierPatternSyntax.self)
      else { return nil }
      return TrackedProperty(
        name: pattern.identifier.trimmedDescription,
        type: binding.typeAnnotation?.type.trimmed,
        initializer: binding.initializer?.value.trimmed,
        declaration: variable
      )
    }
  }

  /// `public ` when the type is public (or open or package), so generated members match.
  var accessPrefix: String {
    for modifier in modifiers {
      switch modifier.name.tokenKind {
      case .keyword(.public), .keyword(.open): return "public "
      case .keyword(.package): return "package "
      default: continue
      }
    }
    return ""
  }

  /// Whether the type declares a member named `name` (a property or a method).
  func declaresMember(named name: String) -> Bool {
    memberBlock.members.contains { member in
      if let variable = member.decl.as(VariableDeclSyntax.self) {
        return variable.bindings.contains { $0.pattern.as(IdentifierPatternSyntax.self)?.identifier.text == name }
      }
      return false
    }
  }
}

extension String {
  /// A Swift string literal for this text.
  var literal: String {
    "\"" + self.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
  }
}
