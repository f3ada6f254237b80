import ArborJSON

/// A type whose state lives in a tree of models: declare it with ``Model()``.
///
/// A model is a struct with reference semantics: copies of a model value share one state,
/// held by the model's context. You never conform to this protocol by hand; the macro
/// generates the requirements.
///
/// ```swift
/// @Model struct CounterModel {
///   var count = 0
///   func incrementTapped() { count += 1 }
/// }
/// ```
public protocol Model: ModelContainer, Identifiable, Sendable, Codable, JSONSchemaDescribing {
  /// The stored state of the model. Generated.
  associatedtype _$State: Sendable

  /// The model's own events, sent with `node.send(_:)` and received by ancestors with
  /// `node.event(fromType:)`. Declare a nested `enum Event` to give a model events.
  associatedtype Event: Sendable = Never

  /// The context holding this model's state. Generated.
  var _$modelContext: ModelContext<Self> { get }

  /// A copy of this value that reads and writes through another context. Generated.
  func _$withContext(_ context: ModelContext<Self>) -> Self

  /// An empty state: every property unset. Generated.
  static func _$emptyState() -> _$State

  /// The type's name as written in its declaration, without generic arguments. Generated.
  static var _$typeName: String { get }

  /// The number of tracked stored properties. Generated.
  static var _$propertyCount: Int { get }

  /// The name of the tracked stored property at `index`. Generated.
  static func _$propertyName(_ index: Int) -> String

  /// Reports the models held by one property of `state`. Generated.
  static func _$visit(_ state: _$State, property: Int, into visitor: inout ModelVisitor)

  /// The JSON Schema of the model's state (an object schema). Generated.
  static func _$stateSchema(in definitions: inout _JSONSchemaDefinitions) -> _JSONSchema

  /// The JSON Schema of the model's `Event`, nil when it has none or it is not `Codable`.
  /// Generated when the model declares an `enum Event`.
  static func _$eventSchema(in definitions: inout _JSONSchemaDefinitions) -> _JSONSchema?

  /// The model's `@Intent` methods. Generated when it has any.
  static var _$intents: [_IntentDescriptor<Self>] { get }

  /// The `@Intent` method named `name`. Never written by hand: its one inlinable
  /// implementation is specialized in each model type's conformance, so that the
  /// dispatcher, which knows the model's type only at run time, looks it up without
  /// generic array operations (about 2,500 instructions per call).
  static func _$intent(named name: String) -> _IntentDescriptor<Self>?

  /// The index of the tracked property a key path names. Generated.
  static func _$propertyIndex(of keyPath: PartialKeyPath<Self>) -> Int?

  /// The `let`s that are not state and that a restore could not give a value (a closure, or
  /// a `@ModelIgnored let`, set by the initializer and not optional), each with its
  /// declaration. Generated when the model has any; see ``unrestorableProperties``.
  static var _$unrestorableProperties: [(name: String, declaration: String)] { get }

  /// Called when the model joins an anchored tree, after its parent and before its
  /// children. Start the model's work here.
  ///
  /// ```swift
  /// func onActivate() {
  ///   if items.isEmpty { items.append(ItemModel()) }
  /// }
  /// ```
  func onActivate()

  /// Upgrades a snapshot record written by an earlier version of this (root) model; see
  /// the default implementation's documentation.
  static func migrate(_ record: inout SnapshotRecord) throws -> Bool

  /// How many leading `models` have the contexts `contexts` starts with: the loop every
  /// write of an array of models runs. A requirement (with an `@inlinable` default, not
  /// generated) so that each conforming type's witness is the loop specialized for it: the
  /// generic one copied every element it compared.
  static func _$commonPrefix(_ models: UnsafeBufferPointer<Self>, _ contexts: ContiguousArray<AnyModelContext>) -> Int

  /// How many trailing `models` have the contexts `contexts` ends with, at most `limit`;
  /// specialized per type like ``_$commonPrefix(_:_:)``.
  static func _$commonSuffix(_ models: UnsafeBufferPointer<Self>, _ contexts: ContiguousArray<AnyModelContext>, limit: Int) -> Int

  /// How many leading and trailing elements `models` and `others` share by identity (the
  /// suffix counted in what the prefix leaves): the loop an undo step runs to keep only
  /// the part of an array of models a write changed. Specialized per type like
  /// ``_$commonPrefix(_:_:)``: called through an existential, the generic loop copied
  /// (retained and released) every element it compared.
  static func _$sharedEnds(_ models: UnsafeBufferPointer<Self>, _ others: UnsafeBufferPointer<Self>) -> (prefix: Int, suffix: Int)
}

extension Model {
  public func onActivate() {}

  public static var _$intents: [_IntentDescriptor<Self>] { [] }

  @inlinable
  public static func _$intent(named name: String) -> _IntentDescriptor<Self>? {
    for descriptor in _$intents where descriptor.name == name { return descriptor }
    return nil
  }

  public static var _$unrestorableProperties: [(name: String, declaration: String)] { [] }

  public static func _$eventSchema(in definitions: inout _JSONSchemaDefinitions) -> _JSONSchema? { nil }

  public func _$visit(_ visitor: inout ModelVisitor) {
    visitor.found(self)
  }
}

/// The stages of a model's life.
public enum ModelLifetime: Sendable, Hashable {
  /// Created, not yet part of an anchored tree.
  case initial
  /// Part of an anchored tree: observed, activated, addressable.
  case anchored
  /// Removed from its tree, or its tree was torn down. Reads return the last state.
  case destructed
  /// An immutable copy; writing to it is reported as an issue and ignored.
  case frozenCopy
}

/// Used by generated code to declare a state field whose type is inferred from an
/// initial value expression without evaluating it.
@inlinable
public func _$uninitialized<T>(_ value: () -> T) -> T? { nil }
