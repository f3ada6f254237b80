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

// The array-like visits are inlinable, so that each model's generated visit gets them
// specialized for its element type: called generically, the loop over the indices went
// through the collection's witness tables (a tenth of anchoring a restored tree's 100,000
// models).
extension Array: ModelContainer where Element: ModelContainer {
  @inlinable
  public func _$visit(_ visitor: inout ModelVisitor) { visitElements(&visitor) }
}

extension ContiguousArray: ModelContainer where Element: ModelContainer {
  @inlinable
  public func _$visit(_ visitor: inout ModelVisitor) { visitElements(&visitor) }
}

extension RandomAccessCollection where Element: ModelContainer, Index == Int {
  /// The visit of an array-like container: each element under its index, or only the one
  /// a lookup by path names.
  @inlinable
  func visitElements(_ visitor: inout ModelVisitor) {
    if let token = visitor.wantedToken {
      guard let index = Int(token), indices.contains(index) else { return }
      visitor.withComponent(.index(index)) { self[index]._$visit(&$0) }
      return
    }
    for index in indices {
      visitor.withComponent(.index(index)) { self[index]._$visit(&$0) }
    }
  }
}

extension Dictionary: ModelContainer where Value: ModelContainer {
  public func _$visit(_ visitor: inout ModelVisitor) {
    if let token = visitor.wantedToken {
      // A lookup by path: only the entry it names.
      if let key = token as? Key {
        if let value = self[key] { visitor.withComponent(.key(token)) { value._$visit(&$0) } }
      } else if let (key, value) = first(where: { "\($0.key)" == token }) {
        visitor.withComponent(.key("\(key)")) { value._$visit(&$0) }
      }
      return
    }
    for (key, value) in self.sorted(by: { "\($0.key)" < "\($1.key)" }) {
      visitor.withComponent(.key("\(key)")) { value._$visit(&$0) }
    }
  }
}

extension IdentifiedArray: ModelContainer where Element: ModelContainer {
  @inlinable
  public func _$visit(_ visitor: inout ModelVisitor) { visitElements(&visitor) }
}

/// An array-like container whose elements are models, at positions `0..<count`.
///
/// Writes to such a property are reconciled by identity: the common prefix and suffix of
/// the old and new elements are found by comparing contexts, and what lies between is
/// removed and inserted. Comparing is a tight loop over references, done on every write.
public protocol _ModelArray {
  var _$count: Int { get }
  func _$context(at index: Int) -> AnyModelContext
  func _$model(at index: Int) -> any Model
  /// How many leading elements are the models of `contexts`, in order.
  func _$commonPrefix(with contexts: ContiguousArray<AnyModelContext>) -> Int
  /// How many trailing elements are the trailing models of `contexts`, looking at no more
  /// than `limit` of them.
  func _$commonSuffix(with contexts: ContiguousArray<AnyModelContext>, limit: Int) -> Int
}

extension Array: _ModelArray where Element: Model {
  public var _$count: Int { count }
  public func _$context(at index: Int) -> AnyModelContext { self[index]._$modelContext }
  public func _$model(at index: Int) -> any Model { self[index] }
  public func _$commonPrefix(with contexts: ContiguousArray<AnyModelContext>) -> Int {
    withUnsafeBufferPointer { Element._$commonPrefix($0, contexts) }
  }
  public func _$commonSuffix(with contexts: ContiguousArray<AnyModelContext>, limit: Int) -> Int {
    withUnsafeBufferPointer { Element._$commonSuffix($0, contexts, limit: limit) }
  }
}

extension ContiguousArray: _ModelArray where Element: Model {
  public var _$count: Int { count }
  public func _$context(at index: Int) -> AnyModelContext { self[index]._$modelContext }
  public func _$model(at index: Int) -> any Model { self[index] }
  public func _$commonPrefix(with contexts: ContiguousArray<AnyModelContext>) -> Int {
    withUnsafeBufferPointer { Element._$commonPrefix($0, contexts) }
  }
  public func _$commonSuffix(with contexts: ContiguousArray<AnyModelContext>, limit: Int) -> Int {
    withUnsafeBufferPointer { Element._$commonSuffix($0, contexts, limit: limit) }
  }
}

extension Model {
  /// How many leading `models` have the contexts `contexts` starts with.
  @inlinable
  public static func _$commonPrefix(_ models: UnsafeBufferPointer<Self>, _ contexts: ContiguousArray<AnyModelContext>) -> Int {
    contexts.withUnsafeBufferPointer { old in
      let count = Swift.min(models.count, old.count)
      var index = 0
      while index < count, models[index]._$modelContext === old[index] { index += 1 }
      return index
    }
  }

  /// How many leading and trailing elements `models` and `others` share by identity; the
  /// suffix is counted only in what the prefix leaves of the shorter one.
  @inlinable
  public static func _$sharedEnds(_ models: UnsafeBufferPointer<Self>, _ others: UnsafeBufferPointer<Self>) -> (prefix: Int, suffix: Int) {
    let limit = Swift.min(models.count, others.count)
    var prefix = 0
    while prefix < limit, models[prefix]._$modelContext === others[prefix]._$modelContext { prefix += 1 }
    var suffix = 0
    while suffix < limit - prefix,
      models[models.count - 1 - suffix]._$modelContext === others[others.count - 1 - suffix]._$modelContext
    {
      suffix += 1
    }
    return (prefix, suffix)
  }

  /// How many trailing `models` have the contexts `contexts` ends with, at most `limit`.
  @inlinable
  public static func _$commonSuffix(_ models: UnsafeBufferPointer<Self>, _ contexts: ContiguousArray<AnyModelContext>, limit: Int) -> Int {
    contexts.withUnsafeBufferPointer { old in
      let count = Swift.min(limit, models.count, old.count)
      var length = 0
      while length < count, models[models.count - 1 - length]._$modelContext === old[old.count - 1 - length] { length += 1 }
      return length
    }
  }
}
