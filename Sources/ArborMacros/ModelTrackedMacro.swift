import SwiftSyntax
import SwiftSyntaxMacros

/// `@_ModelTracked(index)`: the accessors of one tracked property.
public struct ModelTrackedMacro: AccessorMacro {
  public static func expansion(
    of node: AttributeSyntax,
    providingAccessorsOf declaration: some DeclSyntaxProtocol,
    in context: some MacroExpansionContext
  ) throws -> [AccessorDeclSyntax] {
    guard let variable = declaration.as(VariableDeclSyntax.self),
      let name = variable.bindings.first?.pattern.as(IdentifierPatternSyntax.self)?.identifier.trimmed,
      let arguments = node.arguments?.as(LabeledExprListSyntax.self),
      let index = arguments.first?.expression.trimmedDescription
    else { return [] }
    let initAccessor: AccessorDeclSyntax = """
      @storageRestrictions(accesses: _$modelContext)
      init(initialValue) {
        _$modelContext._$initialize { $0.\(name) = initialValue }
      }
      """
    return [
      initAccessor,
      """
      get {
        _$modelContext._$get(\(raw: index)) { $0.\(name) }
      }
      """,
      """
      nonmutating set {
        _$modelContext._$set(\(raw: index), newValue, { $0.\(name) }, { $0.\(name) = $1 })
      }
      """,
      """
      nonmutating _modify {
        var access = _$modelContext._$beginModify(\(raw: index)) { $0.\(name).take() }
        defer {
          _$modelContext._$endModify(\(raw: index), &access) { $0.\(name) = $1 }
        }
        yield &access.value
      }
      """,
    ]
  }
}
