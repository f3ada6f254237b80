import ArborLocking
import ArborJSON

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
    patchCache.value { JSONPatch(changes.count == 1 ? changes[0].patchOperations : changes.flatMap(\.patchOperations)) }
  }

  /// ``patch`` as JSON text (`JSONPatch.jsonBytes`), written once for everyone who needs
  /// it: a daemon's journal and its watchers of the root share one encoding.
  ///
  /// ```swift
  /// String(decoding: changeSet.patchJSON, as: UTF8.self)   // [{"op":"replace","path":"/count","value":1}]
  /// ```
  public var patchJSON: [UInt8] {
    patchCache.bytes { patch.jsonBytes }
  }
}

/// The patch of one change set, and its JSON text, each built once. A struct over its
/// lock's one allocation (copies of the change set share it): one is made for every
/// revision.
struct PatchCache: Sendable {
  private struct Built {
    var patch: JSONPatch?
    var json: [UInt8]?
  }

  /// One lock for both (each change set has a cache: a second lock was a second
  /// allocation per revision).
  private let built = LockedState(Built())

  func value(_ build: () -> JSONPatch) -> JSONPatch {
    if let patch = built.withLock({ $0.patch }) { return patch }
    let patch = build()
    built.withLock { $0.patch = patch }
    return patch
  }

  func bytes(_ build: () -> [UInt8]) -> [UInt8] {
    if let json = built.withLock({ $0.json }) { return json }
    let json = build()
    built.withLock { $0.json = json }
    return json
  }
}

extension Change {
  /// This change as JSON Patch operations: one per place the model occupies (more for a
  /// container edited in several spots); none when the value is not state or could not be
  /// encoded (see ``encodingError``).
  public var patchOperations: [JSONPatchOperation] {
    // One place, almost always: no array of arrays to flatten.
    if paths.count == 1 { return operations(under: paths[0]) }
    return paths.flatMap(operations(under:))
  }

  private func operations(under path: ModelPath) -> [JSONPatchOperation] {
    var tokens: [String] = []
    tokens.reserveCapacity(path.components.count + 2)
    for component in path.components { tokens.append(component.token) }
    tokens.append(property)
    switch operation {
    case .set:
      if let edits { return edits.map { $0.rebased(under: tokens) } }
      guard let value else { return [] }
      return [.replace(JSONPointer(tokens: tokens), value)]
    case .insert(let index, _):
      guard let value else { return [] }
      tokens.append(String(index))
      return [.add(JSONPointer(tokens: tokens), value)]
    case .remove(let index):
      tokens.append(String(index))
      return [.remove(JSONPointer(tokens: tokens))]
    }
  }
}

extension JSONPatchOperation {
  /// The same operation with `prefix` put before its pointers.
  func rebased(under prefix: [String]) -> JSONPatchOperation {
    func moved(_ pointer: JSONPointer) -> JSONPointer { JSONPointer(tokens: prefix + pointer.tokens) }
    switch self {
    case .add(let path, let value): return .add(moved(path), value)
    case .remove(let path): return .remove(moved(path))
    case .replace(let path, let value): return .replace(moved(path), value)
    case .move(let from, let path): return .move(from: moved(from), to: moved(path))
    case .copy(let from, let path): return .copy(from: moved(from), to: moved(path))
    case .test(let path, let value): return .test(moved(path), value)
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
