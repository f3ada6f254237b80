import ArborRPC

extension ChangeSet {
  /// The change set as a JSON Patch (RFC 6902): applied to the tree's state at the previous
  /// revision, it gives the state at ``revision``. A property assignment becomes `replace`;
  /// a model inserted into or removed from an array becomes `add` or `remove` at its index.
  /// Built from the recorded changes alone: its cost follows the change, not the tree.
  ///
  /// ```swift
  /// for await changeSet in anchor.changeSets() {
  ///   let patch = changeSet.patch   // [{"op": "replace", "path": "/counters/0/counter/count", "value": 1}]
  /// }
  /// ```
  public var patch: JSONPatch {
    JSONPatch(changes.compactMap(\.patchOperation))
  }
}

extension Change {
  /// This change as one JSON Patch operation; nil when the value is not state.
  public var patchOperation: JSONPatchOperation? {
    let pointer = JSONPointer(tokens: valuePath.components.map(\.token))
    switch operation {
    case .set:
      return value.map { .replace(pointer, $0) }
    case .insert:
      return value.map { .add(pointer, $0) }
    case .remove:
      return .remove(pointer)
    }
  }
}

extension PathComponent {
  /// The unescaped JSON Pointer token.
  var token: String {
    switch self {
    case .property(let name), .key(let name): return name
    case .index(let index): return String(index)
    }
  }
}
