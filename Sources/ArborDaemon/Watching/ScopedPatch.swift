import ArborJSON

/// One revision's patch as a watch on a path sees it.
///
/// Operations inside the watched subtree are rewritten relative to it. An operation that
/// replaces an ancestor of the path, or inserts into or removes from an array on the way
/// to it (which shifts what the path points at), changes the watched value as a whole:
/// then the watch gets the new value, or learns that the path no longer exists.
enum ScopedPatch: Equatable {
  /// Nothing under the path changed.
  case unchanged
  /// These operations, relative to the path, turn the old value into the new one.
  case operations([JSONPatchOperation])
  /// The value at the path is now this one (nil: the path no longer exists).
  case value(JSONValue?)

  /// What a scoped patch needs of the state before the revision, read before the patch is
  /// applied in place (so that no copy of the whole state is kept): which parents of the
  /// operations' paths were arrays, and the value at each watched path.
  struct Before {
    var arrayParents: Set<JSONPointer> = []
    var values: [JSONPointer: JSONValue] = [:]

    init(_ operations: [JSONPatchOperation], scopes: some Sequence<JSONPointer>, in document: JSONValue) {
      for operation in operations {
        var paths = [operation.path]
        if case .move(let from, _) = operation { paths.append(from) }
        for path in paths {
          guard let (parent, _) = path.parentAndLast, case .array? = try? parent.resolve(in: document) else { continue }
          arrayParents.insert(parent)
        }
      }
      // Watches of one path come in runs: a scope equal to the one before is not hashed
      // again (comparing a path's tokens costs a fraction of hashing them).
      var last: JSONPointer?
      for scope in scopes {
        if scope == last { continue }
        last = scope
        guard values[scope] == nil, let value = try? scope.resolve(in: document) else { continue }
        values[scope] = value
      }
    }
  }

  /// `before` is the state before the revision, `after` the state after it.
  static func scope(_ operations: [JSONPatchOperation], to scope: JSONPointer, before: JSONValue, after: JSONValue) -> ScopedPatch {
    self.scope(operations, to: scope, before: Before(operations, scopes: [scope], in: before), after: after)
  }

  static func scope(_ operations: [JSONPatchOperation], to scope: JSONPointer, before: Before, after: JSONValue) -> ScopedPatch {
    let depth = scope.tokens.count
    if depth == 0 { return operations.isEmpty ? .unchanged : .operations(operations) }
    var relative: [JSONPatchOperation] = []
    var wholesale = false

    func isInside(_ path: JSONPointer) -> Bool {
      path.tokens.count > depth && path.tokens.starts(with: scope.tokens)
    }
    func reaches(_ path: JSONPointer) -> Bool {
      // The path itself or an ancestor of it.
      if path.tokens.count <= depth && scope.tokens.starts(with: path.tokens) { return true }
      // A member of an array on the way to the path: inserting or removing shifts it.
      guard let (parent, _) = path.parentAndLast, parent.tokens.count < depth,
        scope.tokens.starts(with: parent.tokens)
      else { return false }
      if before.arrayParents.contains(parent) { return true }
      if case .array? = try? parent.resolve(in: after) { return true }
      return false
    }
    func relativePath(_ path: JSONPointer) -> JSONPointer { JSONPointer(tokens: Array(path.tokens.dropFirst(depth))) }

    for operation in operations {
      switch operation {
      case .move(let from, let to):
        if reaches(from) || reaches(to) || isInside(from) != isInside(to) {
          wholesale = true
        } else if isInside(to) {
          relative.append(.move(from: relativePath(from), to: relativePath(to)))
        }
      case .copy(let from, let to):
        if reaches(to) || (isInside(to) && !isInside(from)) {
          wholesale = true
        } else if isInside(to) {
          relative.append(.copy(from: relativePath(from), to: relativePath(to)))
        }
      case .add(let path, let value):
        if reaches(path) { wholesale = true } else if isInside(path) { relative.append(.add(relativePath(path), value)) }
      case .remove(let path):
        if reaches(path) { wholesale = true } else if isInside(path) { relative.append(.remove(relativePath(path))) }
      case .replace(let path, let value):
        if reaches(path) { wholesale = true } else if isInside(path) { relative.append(.replace(relativePath(path), value)) }
      case .test(let path, let value):
        if isInside(path) { relative.append(.test(relativePath(path), value)) }
      }
      if wholesale { break }
    }
    if wholesale {
      let old = before.values[scope]
      let new = try? scope.resolve(in: after)
      return old == new ? .unchanged : .value(new)
    }
    return relative.isEmpty ? .unchanged : .operations(relative)
  }
}
