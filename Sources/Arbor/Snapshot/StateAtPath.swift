import ArborJSON

extension ModelAnchor {
  /// The value at `pointer` in the root's state and the revision it reflects; nil for the
  /// value when nothing is there.
  ///
  /// Only the deepest model on the path is encoded (its own subtree), and the rest of the
  /// path is read in that: `/counters/0/counter/count` encodes one counter, not the tree.
  /// The whole root is encoded only for a path that no model below the root begins. The
  /// value equals what ``state()`` holds at that path (a test checks that for every path
  /// of a tree).
  ///
  /// ```swift
  /// let (revision, count) = try anchor.state(at: JSONPointer("/counters/0/counter/count"))
  /// ```
  public func state(at pointer: JSONPointer) throws -> (revision: UInt64, value: JSONValue?) {
    try tree.lock.withLock {
      let root = model._$anyContext
      var depth = pointer.tokens.count
      var target: any Model = model
      while depth > 0 {
        if let context = ChildPath.context(at: pointer.tokens[..<depth], below: root), let found = tree.model(withID: context.id) {
          target = found
          break
        }
        depth -= 1
      }
      let encoded: JSONValue
      do {
        encoded = try JSONValueEncoder().encode(target)
      } catch let error as EncodingError {
        throw SnapshotError(error)
      }
      let rest = JSONPointer(tokens: Array(pointer.tokens[depth...]))
      return (tree.revision, try? rest.resolve(in: encoded))
    }
  }
}
