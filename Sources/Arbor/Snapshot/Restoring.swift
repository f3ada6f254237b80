import ArborJSON
import Dependencies
import Foundation

extension Model {
  /// Restores a tree from an encoded snapshot record: decodes it, anchors it at the
  /// record's revision and activates it. Returns the root and the anchor that owns it.
  ///
  /// A record of another root type, of another format, or written by a model with another
  /// state shape (unless ``migrate(_:)`` upgrades it) is refused with a ``SnapshotError``
  /// that says which and why; so is a record with a missing or mistyped value, and any
  /// record when a tree of this type could not be restored (``isRestorable`` is false).
  ///
  /// ```swift
  /// let (model, anchor) = try AppModel.andAnchor(restoring: data)
  /// ```
  public static func andAnchor(
    restoring data: Data, _ dependencies: (inout DependencyValues) -> Void = { _ in }
  ) throws -> (Self, ModelAnchor<Self>) {
    try refuseUnlessRestorable()
    let (root, revision) = try decodeSnapshot(data)
    return anchorRestored(root, revision: revision, dependencies)
  }

  /// Decodes an encoded snapshot record as ``andAnchor(restoring:_:)-(Data,_)`` would,
  /// migrating it when it was written by another schema, and anchors nothing: no model
  /// runs. Throws the error that restoring it would throw. A process about to take over a
  /// running daemon's state checks with it first, while the daemon still serves.
  ///
  /// ```swift
  /// try AppModel.checkRestorable(snapshot)
  /// ```
  package static func checkRestorable(_ data: Data) throws {
    try refuseUnlessRestorable()
    _ = try decodeSnapshot(data)
  }

  /// Restores a tree from a snapshot record; see ``andAnchor(restoring:_:)-(Data,_)``.
  ///
  /// ```swift
  /// let (model, anchor) = try AppModel.andAnchor(restoring: record)
  /// ```
  public static func andAnchor(
    restoring record: SnapshotRecord, _ dependencies: (inout DependencyValues) -> Void = { _ in }
  ) throws -> (Self, ModelAnchor<Self>) {
    try andAnchor(restoring: record, revision: record.revision, dependencies)
  }

  /// Restores a tree from a snapshot record and anchors it at `revision` instead of the
  /// record's own: a host that replaces its tree keeps its revisions increasing.
  ///
  /// ```swift
  /// let (model, anchor) = try AppModel.andAnchor(restoring: record, revision: current + 1)
  /// ```
  public static func andAnchor(
    restoring record: SnapshotRecord, revision: UInt64, _ dependencies: (inout DependencyValues) -> Void = { _ in }
  ) throws -> (Self, ModelAnchor<Self>) {
    try restoredTree(record, revision: revision, activating: true, dependencies)
  }

  /// Restores a tree from a snapshot record as ``andAnchor(restoring:revision:_:)`` does,
  /// but runs none of its models until ``ModelAnchor/activate()``: a process that prepares
  /// the tree ahead of its turn (the next daemon of an upgrade, while the old one serves)
  /// replays the revisions committed meanwhile into it (``ModelAnchor/replay(_:at:)``)
  /// before anything of the models runs.
  ///
  /// ```swift
  /// let (_, anchor) = try AppModel.andAnchorInactive(restoring: record)
  /// for entry in newer { try anchor.replay(entry.patch, at: entry.revision) }
  /// anchor.activate()
  /// ```
  package static func andAnchorInactive(
    restoring record: SnapshotRecord, _ dependencies: (inout DependencyValues) -> Void = { _ in }
  ) throws -> (Self, ModelAnchor<Self>) {
    try restoredTree(record, revision: record.revision, activating: false, dependencies)
  }

  private static func restoredTree(
    _ record: SnapshotRecord, revision: UInt64, activating: Bool, _ dependencies: (inout DependencyValues) -> Void
  ) throws -> (Self, ModelAnchor<Self>) {
    try refuseUnlessRestorable()
    let header = SnapshotHeader(format: record.format, root: record.root, schema: record.schema, revision: record.revision, createdAt: record.createdAt)
    guard record.format == SnapshotRecord.currentFormat else {
      throw SnapshotError.unsupportedFormat(found: record.format, supported: SnapshotRecord.currentFormat)
    }
    let root: Self
    do {
      try header.check(for: Self.self)
      root = try decodeState(record.state)
    } catch SnapshotError.incompatibleSchema {
      root = try decodeMigrated(record)
    }
    return anchorRestored(root, revision: revision, activating: activating, dependencies)
  }

  /// Upgrades a record written by an earlier version of this root model, by rewriting
  /// `record.state` into this version's shape. Return `true` when the record was upgraded;
  /// the default upgrades nothing, so a record of another schema is refused.
  ///
  /// ```swift
  /// static func migrate(_ record: inout SnapshotRecord) throws -> Bool {
  ///   guard case .object(var state) = record.state, let celsius = state.removeValue(forKey: "celsius")
  ///   else { return false }
  ///   state["temperature"] = ["value": celsius, "unit": "celsius"]
  ///   record.state = .object(state)
  ///   return true
  /// }
  /// ```
  public static func migrate(_ record: inout SnapshotRecord) throws -> Bool { false }

  private static func anchorRestored(
    _ root: Self, revision: UInt64, activating: Bool = true, _ dependencies: (inout DependencyValues) -> Void
  ) -> (Self, ModelAnchor<Self>) {
    let tree = ModelTree.anchor(root, revision: revision, activating: activating, dependencies: dependencies)
    return (root, ModelAnchor(model: root, tree: tree))
  }

  /// Reads a record as the daemon does: parsed by `JSONParser`, decoded by
  /// `JSONValueDecoder`, which reads each model's members straight from the parsed objects
  /// (`JSONDecoder` took about twice as long for the same record).
  static func decodeSnapshot(_ data: Data) throws -> (Self, UInt64) {
    let value: JSONValue
    do {
      value = try JSONValue(parsing: data)
    } catch {
      throw SnapshotError.malformed(reason: error.description)
    }
    do {
      let record = try SnapshotCoding.decoder().decode(DecodableRecord<Self>.self, from: value)
      return (record.root, record.header.revision)
    } catch SnapshotError.incompatibleSchema {
      let record: SnapshotRecord
      do {
        record = try JSONValueDecoder().decode(SnapshotRecord.self, from: value)
      } catch let error as DecodingError {
        throw SnapshotError(error)
      }
      return (try decodeMigrated(record), record.revision)
    } catch let error as DecodingError {
      throw SnapshotError(error)
    }
  }

  private static func decodeMigrated(_ record: SnapshotRecord) throws -> Self {
    var migrated = record
    let upgraded: Bool
    do {
      upgraded = try migrate(&migrated)
    } catch {
      throw SnapshotError.migrationFailed(root: _$typeName, reason: "\(error)")
    }
    guard upgraded else {
      throw SnapshotError.incompatibleSchema(root: _$typeName, expected: schemaHash, found: record.schema)
    }
    return try decodeState(migrated.state)
  }

  /// Decodes a root from its state as a JSON value; errors name the path under `/state`.
  static func decodeState(_ state: JSONValue) throws -> Self {
    do {
      return try SnapshotCoding.decoder().decode(Self.self, from: state)
    } catch let error as DecodingError {
      throw SnapshotError(error).underState
    }
  }
}

extension SnapshotError {
  /// The same error with its path taken from the record's top level.
  var underState: SnapshotError {
    if case .invalidValue(let path, let reason) = self { return .invalidValue(path: "/state" + path, reason: reason) }
    return self
  }
}
