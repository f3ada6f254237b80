/// A property that keeps a tree in process: it is not state, so a snapshot leaves it out,
/// and it has no value a restore could give it. That is a `let` holding a closure, or a
/// `@ModelIgnored let`, which the model's initializer sets and which is not optional.
///
/// A model with such a property works in process like any other; a tree that can hold it
/// cannot be saved or restored (see ``SnapshotError/notRestorable(root:property:)``).
///
/// ```swift
/// @Model struct RecordMeetingModel {
///   let onSave: @Sendable (String) -> Void
///   var transcript = ""
/// }
/// print(RecordMeetingModel.unrestorableProperties)
/// // [RecordMeetingModel.onSave (let onSave: @Sendable (String) -> Void)]
/// ```
public struct UnrestorableProperty: Sendable, Hashable, CustomStringConvertible {
  /// The model type that declares it, as written (`RecordMeetingModel`).
  public var model: String
  /// The property's name (`onSave`).
  public var name: String
  /// Its declaration, without modifiers (`let onSave: @Sendable (String) -> Void`).
  public var declaration: String

  public init(model: String, name: String, declaration: String) {
    self.model = model
    self.name = name
    self.declaration = declaration
  }

  public var description: String { "\(model).\(name) (\(declaration))" }
}
