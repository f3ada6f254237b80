extension JSONValue {
  /// The pointer to the object whose `"id"` is `id` in a tree's state, searched depth first
  /// (object keys in sorted order); nil when there is none. This is how a model addressed
  /// by its stable id is found in a state or a snapshot, wherever reordering moved it.
  ///
  /// ```swift
  /// let state: JSONValue = ["id": "a", "counters": [["id": "b", "count": 1]]]
  /// state.pointer(toObjectWithID: "b")   // /counters/0
  /// ```
  public func pointer(toObjectWithID id: String) -> JSONPointer? {
    var tokens: [String] = []
    return search(id, &tokens) ? JSONPointer(tokens: tokens) : nil
  }

  private func search(_ id: String, _ tokens: inout [String]) -> Bool {
    switch self {
    case .object(let members):
      if members["id"] == .string(id) { return true }
      for key in members.keys.sorted() {
        tokens.append(key)
        if members[key]!.search(id, &tokens) { return true }
        tokens.removeLast()
      }
      return false
    case .array(let elements):
      for (index, element) in elements.enumerated() {
        tokens.append(String(index))
        if element.search(id, &tokens) { return true }
        tokens.removeLast()
      }
      return false
    default:
      return false
    }
  }
}
