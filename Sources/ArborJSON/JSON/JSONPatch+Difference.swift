extension JSONPatch {
  /// The operations that turn `old` into `new`, for the value at `base` of a document.
  ///
  /// Objects are compared member by member; arrays lose their common prefix and suffix,
  /// and what lies between is edited element by element when both middles have the same
  /// length, else removed (from the end) and added again. A value that `isAtomic` calls
  /// atomic is compared whole and, when different, replaced whole. Every value written is
  /// first passed through `expand`.
  ///
  /// ```swift
  /// let ops = try JSONPatch.difference(from: ["a": 1, "b": [1, 2]], to: ["a": 1, "b": [1, 2, 3]])
  /// // [{"op": "add", "path": "/b/2", "value": 3}]
  /// ```
  public static func difference(
    from old: JSONValue, to new: JSONValue, at base: JSONPointer = .root,
    isAtomic: (JSONValue) -> Bool = { _ in false },
    expand: (JSONValue) throws -> JSONValue = { $0 }
  ) rethrows -> [JSONPatchOperation] {
    var operations: [JSONPatchOperation] = []
    try difference(old, new, base.tokens, isAtomic, expand, &operations)
    return operations
  }

  private static func difference(
    _ old: JSONValue, _ new: JSONValue, _ tokens: [String],
    _ isAtomic: (JSONValue) -> Bool, _ expand: (JSONValue) throws -> JSONValue,
    _ operations: inout [JSONPatchOperation]
  ) rethrows {
    if old == new { return }
    switch (old, new) {
    case (.object(let a), .object(let b)) where !isAtomic(old) && !isAtomic(new):
      for key in a.keys.sorted() where b[key] == nil {
        operations.append(.remove(JSONPointer(tokens: tokens + [key])))
      }
      for key in b.keys.sorted() {
        if let before = a[key] {
          try difference(before, b[key]!, tokens + [key], isAtomic, expand, &operations)
        } else {
          operations.append(.add(JSONPointer(tokens: tokens + [key]), try expand(b[key]!)))
        }
      }
    case (.array(let a), .array(let b)):
      var prefix = 0
      while prefix < a.count, prefix < b.count, a[prefix] == b[prefix] { prefix += 1 }
      var suffix = 0
      while suffix < a.count - prefix, suffix < b.count - prefix,
        a[a.count - 1 - suffix] == b[b.count - 1 - suffix]
      {
        suffix += 1
      }
      let removed = prefix..<(a.count - suffix)
      let added = prefix..<(b.count - suffix)
      if removed.count == added.count {
        for (i, j) in zip(removed, added) {
          try difference(a[i], b[j], tokens + [String(i)], isAtomic, expand, &operations)
        }
      } else {
        for index in removed.reversed() {
          operations.append(.remove(JSONPointer(tokens: tokens + [String(index)])))
        }
        for index in added {
          operations.append(.add(JSONPointer(tokens: tokens + [String(index)]), try expand(b[index])))
        }
      }
    default:
      operations.append(.replace(JSONPointer(tokens: tokens), try expand(new)))
    }
  }
}
