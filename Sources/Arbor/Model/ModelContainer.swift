import IdentifiedCollections

/// A value that may hold models: a model itself, or a type whose stored values contain models.
///
/// Arbor walks containers to find the child models of a model: when a model joins a tree,
/// when a property holding models is written, and when a path is computed. `Array`,
/// `Optional`, `Dictionary`, `ContiguousArray` and `IdentifiedArray` are containers when their
/// elements are; annotate your own enums and structs with ``ModelContainer()``:
///
/// ```swift
/// @ModelContainer enum Destination {
///   case detail(DetailModel)
///   case settings(SettingsModel)
/// }
/// ```
public protocol ModelContainer {
  /// Reports every model held by this value to `visitor`. Generated; do not call.
  func _$visit(_ visitor: inout ModelVisitor)
}

extension Optional: ModelContainer where Wrapped: ModelContainer {
  public func _$visit(_ visitor: inout ModelVisitor) {
    if case .some(let wrapped) = self { wrapped._$visit(&visitor) }
  }
}

extension Array: ModelContainer where Element: ModelContainer {
  public func _$visit(_ visitor: inout ModelVisitor) {
    for index in indices {
      visitor.withComponent(.index(index)) { self[index]._$visit(&$0) }
    }
  }
}

extension ContiguousArray: ModelContainer where Element: ModelContainer {
  public func _$visit(_ visitor: inout ModelVisitor) {
    for index in indices {
      visitor.withComponent(.index(index)) { self[index]._$visit(&$0) }
    }
  }
}

extension Dictionary: ModelContainer where Value: ModelContainer {
  public func _$visit(_ visitor: inout ModelVisitor) {
    for (key, value) in self.sorted(by: { "\($0.key)" < "\($1.key)" }) {
      visitor.withComponent(.key("\(key)")) { value._$visit(&$0) }
    }
  }
}

extension IdentifiedArray: ModelContainer where Element: ModelContainer {
  public func _$visit(_ visitor: inout ModelVisitor) {
    for index in indices {
      visitor.withComponent(.index(index)) { self[index]._$visit(&$0) }
    }
  }
}

/// An array-like container whose elements are models, at positions `0..<count`.
///
/// Writes to such a property that append at the end or remove from the end are reconciled
/// in time proportional to the change, not to the length of the array.
public protocol _ModelArray {
  var _$count: Int { get }
  func _$context(at index: Int) -> AnyModelContext
  func _$model(at index: Int) -> any Model
}

extension Array: _ModelArray where Element: Model {
  public var _$count: Int { count }
  public func _$context(at index: Int) -> AnyModelContext { self[index]._$modelContext }
  public func _$model(at index: Int) -> any Model { self[index] }
}

extension ContiguousArray: _ModelArray where Element: Model {
  public var _$count: Int { count }
  public func _$context(at index: Int) -> AnyModelContext { self[index]._$modelContext }
  public func _$model(at index: Int) -> any Model { self[index] }
}

extension IdentifiedArray: _ModelArray where Element: Model {
  public var _$count: Int { count }
  public func _$context(at index: Int) -> AnyModelContext { self[index]._$modelContext }
  public func _$model(at index: Int) -> any Model { self[index] }
}
