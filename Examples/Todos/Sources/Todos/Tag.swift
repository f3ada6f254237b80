import Arbor

/// A label that items share: tagging a second item with a name already in use puts the
/// same `Tag` model in both items' `tags`, so the tree holds it in two places.
///
/// A tag held by one item only can be renamed in place; a shared one is copied first, so
/// that renaming it on one item leaves the other items' tag as it was (see
/// ``TodoItem/renameTag(named:to:)``).
///
/// ```swift
/// let (list, _) = TodoListModel().andAnchor { $0.date = .constant(.now) }
/// let milk = try list.addItem(title: "Milk"), eggs = try list.addItem(title: "Eggs")
/// try list.item(milk)?.addTag(name: "shop")
/// try list.item(eggs)?.addTag(name: "shop")       // the same Tag model, now shared
/// print(list.items[0].tags[0].isShared)           // true
/// ```
@Model public struct Tag {
  /// The tag's name, unique within an item.
  public var name: String

  /// A tag called `name`.
  ///
  /// ```swift
  /// let tag = Tag(name: "home")
  /// ```
  public init(name: String) {
    self.name = name
  }

  public func onActivate() {
    // A rename in place is an edit of the tag itself: the tag tracks its own name.
    node.trackUndo(\.name)
  }

  /// Whether more than one place of the tree holds this tag: observable, it changes when
  /// a second item takes the tag and again when that item lets it go.
  ///
  /// ```swift
  /// if tag.isShared { print("renaming copies it first") }
  /// ```
  public var isShared: Bool { !node.isUniquelyReferenced }
}
