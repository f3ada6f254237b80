/// Why an intent of the todo list refused to change anything. Over the socket it is the
/// reply's `org.arbor.IntentFailed` error, with this description as its `error`.
///
/// ```swift
/// do { try list.addItem(title: "  ") } catch let error as TodoError { print(error) }
/// // a todo needs a title
/// ```
public enum TodoError: Error, Equatable, CustomStringConvertible {
  /// The title was empty (or only spaces).
  case emptyTitle
  /// No item of the list has this id.
  case noSuchItem(String)
  /// The item has no tag of this name.
  case noSuchTag(String)

  public var description: String {
    switch self {
    case .emptyTitle: "a todo needs a title"
    case .noSuchItem(let id): "no item has the id \(id)"
    case .noSuchTag(let name): "the item has no tag named '\(name)'"
    }
  }
}
