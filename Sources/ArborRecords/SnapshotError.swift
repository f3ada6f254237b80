/// Why a snapshot could not be taken or restored. Each case says what is wrong and where.
///
/// ```swift
/// do { _ = try AppModel.andAnchor(restoring: data) }
/// catch let error as SnapshotError { print(error) }
/// // the snapshot's state is invalid at /counters/0/counter/count: expected Int, found a string
/// ```
public enum SnapshotError: Error, Sendable, Hashable, CustomStringConvertible {
  /// The bytes are not a JSON snapshot record (e.g. truncated).
  case malformed(reason: String)
  /// The record was written in a layout this build does not read.
  case unsupportedFormat(found: Int, supported: Int)
  /// The record holds a tree of another root type.
  case wrongRoot(expected: String, found: String)
  /// The record was written by a model whose state has another shape, and the root's
  /// `migrate(_:)` did not upgrade it.
  case incompatibleSchema(root: String, expected: String, found: String)
  /// A field of the record or a value inside its state is missing or of the wrong type.
  case invalidValue(path: String, reason: String)
  /// The root's `migrate(_:)` threw.
  case migrationFailed(root: String, reason: String)
  /// The tree's state could not be encoded (e.g. a Double that is not finite).
  case unencodable(reason: String)
  /// A tree rooted at `root` can hold a model with a property that a snapshot leaves out and
  /// a restore could not give a value (a closure `let`): such a tree works in process only.
  case notRestorable(root: String, property: UnrestorableProperty)

  public var description: String {
    switch self {
    case .malformed(let reason):
      return "the snapshot is not a valid JSON record: \(reason)"
    case .unsupportedFormat(let found, let supported):
      return "the snapshot has format version \(found); this build reads format \(supported)"
    case .wrongRoot(let expected, let found):
      return "the snapshot holds a tree of \(found), not of \(expected)"
    case .incompatibleSchema(let root, let expected, let found):
      return "the snapshot was written by an incompatible \(root) (its schema is \(found), this build's is \(expected)); implement \(root).migrate(_:) to upgrade such records"
    case .invalidValue(let path, let reason):
      return "the snapshot is invalid at \(path.isEmpty ? "its top level" : path): \(reason)"
    case .migrationFailed(let root, let reason):
      return "\(root).migrate(_:) failed: \(reason)"
    case .unencodable(let reason):
      return "the tree's state cannot be encoded: \(reason)"
    case .notRestorable(let root, let property):
      let holder = property.model == root ? "\(root)'s" : "it can hold a \(property.model), whose"
      let optional = "make '\(property.name)' optional so that a restored model gets nil"
      // A closure has a better way out; an ignored `let` may hold anything.
      let remedy =
        property.declaration.hasPrefix("@ModelIgnored")
        ? optional
        : "have \(property.model) send an event instead of calling a closure (Models.md, \"Closures or events\"), or \(optional)"
      return "a tree of \(root) cannot be saved or restored: \(holder) '\(property.declaration)' is not state, and a restore "
        + "would have no value to give it; \(remedy)"
    }
  }
}
