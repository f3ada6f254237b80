import Arbor

/// How a list orders its items in ``TodoListModel/sortedItems``; the list hands it down to
/// its items as a context value (``Arbor/ContextKeys/todoSortOrder``), and each item reads
/// it to make its ``TodoItem/sortKey``.
///
/// ```swift
/// try list.setSortOrder(to: .title)
/// print(list.sortedItems.map(\.title))
/// ```
public enum SortOrder: String, Codable, Sendable, CaseIterable {
  /// The order the items were added in.
  case created
  /// Alphabetical by title, ignoring case.
  case title
  /// Open items first, then done ones, each in the order they were added.
  case doneLast
}

/// Where an item goes when its list is sorted: items compare by `rank`, then by `text`,
/// then by their place in the list.
///
/// ```swift
/// SortKey(rank: 0, text: "eggs") < SortKey(rank: 0, text: "milk")   // true
/// ```
public struct SortKey: Comparable, Hashable, Sendable {
  /// Compared first.
  public var rank: Int
  /// Compared when the ranks are equal.
  public var text: String

  /// A key of a rank and a text.
  ///
  /// ```swift
  /// let key = SortKey(rank: 1, text: "")
  /// ```
  public init(rank: Int, text: String) {
    self.rank = rank
    self.text = text
  }

  public static func < (lhs: SortKey, rhs: SortKey) -> Bool {
    (lhs.rank, lhs.text) < (rhs.rank, rhs.text)
  }
}

extension ContextKeys {
  /// The sort order of the nearest list above a model: an environment value, set by
  /// ``TodoListModel`` and read by every ``TodoItem`` below it.
  ///
  /// ```swift
  /// let order = item.node.context.todoSortOrder   // .created until the list says otherwise
  /// ```
  public var todoSortOrder: ContextStorage<SortOrder> {
    .init(defaultValue: .created, propagation: .environment)
  }
}

extension PreferenceKeys {
  /// How many items are overdue at or below a model: each overdue ``TodoItem``
  /// contributes 1, and a read sums the contributions of the subtree.
  ///
  /// ```swift
  /// let overdue = list.node.preference.overdueCount
  /// ```
  public var overdueCount: PreferenceStorage<Int> {
    .init(defaultValue: 0) { $0 += $1 }
  }
}
