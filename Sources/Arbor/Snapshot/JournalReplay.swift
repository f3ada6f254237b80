import ArborJSON

/// What one operation of a replay gives a model's property: the part that writes it, or
/// its value with the operation applied when that value does not decode yet (an enum's
/// case changed by a `remove` then an `add`: the value between the two is no case).
enum ReplayStep {
  case part(any UndoPart)
  case undecodable(JSONValue, reason: String)
}

/// Why a journalled revision could not be replayed into a tree (``ModelAnchor/replay(_:at:)``).
package struct JournalReplayError: Error, CustomStringConvertible {
  package let description: String

  init(_ description: String) { self.description = description }
}

extension ModelAnchor {
  /// Runs the models of a tree restored with ``Model/andAnchorInactive(restoring:_:)``:
  /// each is activated, parents first, as at an anchoring. Does nothing for a tree that
  /// runs already.
  ///
  /// ```swift
  /// anchor.activate()
  /// ```
  package func activate() {
    var work = PostCommitWork()
    work.activations = tree.lock.withLock { tree.pendingActivations.release() }
    work.run()
  }

  /// Replays a revision that another process committed and journalled: its patch, applied
  /// to this tree's models as one transaction, which commits as exactly `revision` (the
  /// one after the tree's). A patch's operation writes the property of the deepest model
  /// its path reaches: an element added to, removed from or replaced in an array of models
  /// is a splice of that array (its other models stay as they are), any other value is
  /// decoded whole from the property's value with the operation applied. A model's id in
  /// the patch names that model (a model moved stays itself).
  ///
  /// Throws when the revision does not follow the tree's or the patch does not fit the
  /// models (another schema's patch, a path no model has): the tree may then hold part of
  /// the revision, and should be restored anew.
  ///
  /// ```swift
  /// for entry in try store.journal(since: anchor.revision, limit: .max) {
  ///   try anchor.replay(entry.patch, at: entry.revision)
  /// }
  /// ```
  package func replay(_ patch: JSONPatch, at revision: UInt64) throws(JournalReplayError) {
    guard let root = tree.lock.withLock({ tree.root }) else { throw JournalReplayError("the tree is torn down") }
    let scope = root._beginWrite()
    var failure: JournalReplayError?
    do throws(JournalReplayError) {
      guard tree.revision &+ 1 == revision else {
        throw JournalReplayError("revision \(revision) does not follow the tree's, \(tree.revision)")
      }
      tree.fanOut.undo?.beginReplaying()
      var replay = JournalReplay(tree: tree, root: root)
      for operation in patch.operations { try replay.apply(operation) }
      try replay.finish()
      // A journalled revision is one whatever it changed (an undo's may change no value).
      tree.changedInTransaction = true
    } catch {
      failure = error
    }
    root._endWrite(scope)
    if let failure { throw failure }
  }
}

/// One revision's replay into an anchored tree (``ModelAnchor/replay(_:at:)``). The tree's
/// lock held throughout.
private struct JournalReplay {
  let tree: ModelTree
  let root: AnyModelContext

  /// What an operation writes: a property of one model, and the operation below it.
  private struct Target: Equatable {
    let context: ObjectIdentifier
    let property: Int
    let operation: JSONPatchOperation
  }

  /// The last target written and the paths that led to it: a model that stands at several
  /// places has each change in the patch once per place, and the change is made once.
  private var run: (target: Target, paths: Set<JSONPointer>)?
  /// A property whose value the operations so far left undecodable: the next operation
  /// must write the same property (and make it decodable by the end of the patch).
  private var pending: (context: AnyModelContext, property: Int, value: JSONValue, reason: String)?

  init(tree: ModelTree, root: AnyModelContext) {
    self.tree = tree
    self.root = root
  }

  mutating func apply(_ operation: JSONPatchOperation) throws(JournalReplayError) {
    if case .test = operation { return }
    let relative: JSONPatchOperation
    let (context, property, rest) = try locate(operation.path)
    switch operation {
    case .test:
      return
    case .add(_, let value): relative = .add(JSONPointer(tokens: Array(rest)), value)
    case .replace(_, let value): relative = .replace(JSONPointer(tokens: Array(rest)), value)
    case .remove: relative = .remove(JSONPointer(tokens: Array(rest)))
    case .move(let from, _), .copy(let from, _):
      let (source, sourceProperty, sourceRest) = try locate(from)
      guard source === context, sourceProperty == property else {
        throw JournalReplayError("\(operation.op) from \(from) to \(operation.path) crosses from one property to another")
      }
      let (from, to) = (JSONPointer(tokens: Array(sourceRest)), JSONPointer(tokens: Array(rest)))
      if case .move = operation { relative = .move(from: from, to: to) } else { relative = .copy(from: from, to: to) }
    }
    let target = Target(context: ObjectIdentifier(context), property: property, operation: relative)
    if let run, run.target == target, !run.paths.contains(operation.path) {
      self.run?.paths.insert(operation.path)
      return
    }
    run = (target, [operation.path])
    if let pending, pending.context !== context || pending.property != property {
      throw JournalReplayError("\(pending.context.typeName).\(pending.context.propertyName(pending.property)): \(pending.reason)")
    }
    let models = DecodedModels(live: { [weak tree] id in tree?.liveContext(id) })
    let step: ReplayStep
    do {
      step = try context.replayStep(relative, property: property, pending: pending?.value, models: models)
    } catch {
      models.putBackLiveStates()
      throw JournalReplayError("\(operation.op) at \(operation.path): \(error)")
    }
    // A decode writes the values it read into the live models it reused: they are written
    // again below, as writes of the tree.
    models.putBackLiveStates()
    switch step {
    case .part(let part):
      pending = nil
      part.restore()
    case .undecodable(let value, let reason):
      pending = (context, property, value, "\(operation.op) at \(operation.path) left a value that does not decode (\(reason))")
    }
  }

  /// Ends the revision: a value still undecodable is an error.
  func finish() throws(JournalReplayError) {
    if let pending {
      throw JournalReplayError("\(pending.context.typeName).\(pending.context.propertyName(pending.property)): \(pending.reason)")
    }
  }

  /// The deepest model `pointer` reaches, the property of it that the path names next, and
  /// the rest of the path, below that property's value.
  private func locate(_ pointer: JSONPointer) throws(JournalReplayError) -> (AnyModelContext, Int, ArraySlice<String>) {
    var context = root
    var tokens = pointer.tokens[...]
    while let name = tokens.first {
      guard let property = (0..<context.propertyCount).first(where: { context.propertyName($0) == name }) else {
        throw JournalReplayError("\(pointer): \(context.typeName) has no property '\(name)'")
      }
      let rest = tokens.dropFirst()
      // An operation on an element's own place (`/counters/3`, `/counters/-`) writes the
      // property that holds it: no child is looked for (for an index past the end, the
      // look would visit every child).
      if rest.count == 1, JSONPointer.index(named: rest[rest.startIndex]) != nil || rest[rest.startIndex] == "-" {
        return (context, property, rest)
      }
      // Into a child model only when the path goes on inside it: an operation on the
      // child's own place writes the property that holds it.
      if let table = context.childTable, let (child, consumed) = ChildPath.child(in: table, of: context, property: property, before: rest),
        rest.count > consumed
      {
        context = child
        tokens = rest.dropFirst(consumed)
        continue
      }
      return (context, property, rest)
    }
    throw JournalReplayError("\(pointer): an operation on the whole state is not replayed")
  }
}

extension ModelContext {
  /// What writing `operation` (its path below the property's value) into `property`
  /// gives: a splice of an array of models, or the property's value (`pending`, or the
  /// current one encoded) with the operation applied, decoded; or that value when it does
  /// not decode. Tree lock held.
  func replayed(_ operation: JSONPatchOperation, property: Int, pending: JSONValue?, models: DecodedModels) throws(JournalReplayError)
    -> ReplayStep
  {
    let paths = StateFields.keyPaths(of: M.self)
    let name = M._$propertyName(property)
    guard property < paths.count, let path = paths[property] else {
      throw JournalReplayError("\(M._$typeName).\(name) is not a field of its state")
    }
    var state = _state
    do {
      if pending == nil, let splice = operation.splice(ofModels: StateFields.modelArrayCount(state, at: path)) {
        guard try StateFields.write(splice, or: .null, into: &state, at: path, models: models) else {
          throw JournalReplayError("\(M._$typeName).\(name) cannot be spliced")
        }
        return .part(StateUndoPart(context: self, properties: [property], state: state))
      }
      guard let current = try pending ?? StateFields.encodedValue(state, at: path) else {
        throw JournalReplayError("\(M._$typeName).\(name) cannot be encoded")
      }
      let json = try operation.applied(to: current)
      do {
        guard try StateFields.write(nil, or: json, into: &state, at: path, models: models) else {
          throw JournalReplayError("\(M._$typeName).\(name) cannot be decoded")
        }
      } catch let error as DecodingError {
        return .undecodable(json, reason: "\(error)")
      }
    } catch let error as JournalReplayError {
      throw error
    } catch {
      throw JournalReplayError("\(M._$typeName).\(name): \(error)")
    }
    return .part(StateUndoPart(context: self, properties: [property], state: state))
  }
}

extension JSONPatchOperation {
  /// This operation (its path relative to an array of `count` models) as a splice of the
  /// array: an element added, removed or replaced. Nil for anything else.
  fileprivate func splice(ofModels count: Int?) -> UndoStep.Splice? {
    guard let count, path.tokens.count == 1, let token = path.tokens.first else { return nil }
    switch self {
    case .add(_, let value):
      guard let index = token == "-" ? count : JSONPointer.index(named: token), index <= count else { return nil }
      return UndoStep.Splice(at: index, remove: 0, count: count, insert: [value])
    case .remove:
      guard let index = JSONPointer.index(named: token), index < count else { return nil }
      return UndoStep.Splice(at: index, remove: 1, count: count, insert: [])
    case .replace(_, let value):
      guard let index = JSONPointer.index(named: token), index < count else { return nil }
      return UndoStep.Splice(at: index, remove: 1, count: count, insert: [value])
    default:
      return nil
    }
  }

  /// `value` with this operation applied (its path relative to `value`). An operation on
  /// the whole value replaces it; removing it leaves `null` (an optional set to nil).
  fileprivate func applied(to value: JSONValue) throws -> JSONValue {
    if path.tokens.isEmpty {
      switch self {
      case .add(_, let new), .replace(_, let new): return new
      case .remove: return .null
      case .test: return value
      case .move, .copy: throw JournalReplayError("\(op) onto the whole value of a property")
      }
    }
    var document = value
    try JSONPatch([self]).apply(to: &document)
    return document
  }
}
