import ArborJSON
import Foundation

extension ModelAnchor {
  /// The tree's snapshot record, encoded as JSON, taken at one revision: the tree's lock
  /// is held while the state is read, so no write lands halfway through.
  ///
  /// A tree that could not be restored (``Model/isRestorable`` is false) is refused with
  /// ``SnapshotError/notRestorable(root:property:)``; ``state()`` still reads it.
  ///
  /// ```swift
  /// let data = try anchor.snapshot()
  /// try data.write(to: url)
  /// ```
  public func snapshot(createdAt: Date = Date()) throws -> Data {
    try Root.refuseUnlessRestorable()
    return try tree.lock.withLock {
      let header = SnapshotHeader(
        format: SnapshotRecord.currentFormat, root: Root._$typeName, schema: Root.schemaHash,
        revision: tree.revision, createdAt: createdAt)
      do {
        // Through a JSON value, written by ArborJSON's writer: about twice as fast here as
        // JSONEncoder, whose generic keyed containers dominate the cost of many small models.
        return try header.record(state: JSONValueEncoder().encode(model)).jsonData()
      } catch let error as EncodingError {
        throw SnapshotError(error)
      }
    }
  }

  /// The tree's snapshot record with its state as a JSON value, taken at one revision.
  /// Refused, like ``snapshot(createdAt:)``, for a tree that could not be restored.
  ///
  /// ```swift
  /// let record = try anchor.snapshotRecord()
  /// print(record.revision, record.state["counters"] ?? nil)
  /// ```
  public func snapshotRecord(createdAt: Date = Date()) throws -> SnapshotRecord {
    try Root.refuseUnlessRestorable()
    return try tree.lock.withLock { try recordLocked(createdAt: createdAt) }
  }

  /// The snapshot record of the tree as it is. Tree lock held.
  func recordLocked(createdAt: Date) throws -> SnapshotRecord {
    do {
      return SnapshotRecord(
        root: Root._$typeName, schema: Root.schemaHash, revision: tree.revision, createdAt: createdAt,
        state: try JSONValueEncoder().encode(model))
    } catch let error as EncodingError {
      throw SnapshotError(error)
    }
  }

  /// The root's state as a JSON value, with the revision it reflects.
  ///
  /// ```swift
  /// let (revision, state) = try anchor.state()
  /// ```
  public func state() throws -> (revision: UInt64, value: JSONValue) {
    try tree.lock.withLock {
      do {
        return (tree.revision, try JSONValueEncoder().encode(model))
      } catch let error as EncodingError {
        throw SnapshotError(error)
      }
    }
  }
}

extension SnapshotError {
  init(_ error: EncodingError) {
    switch error {
    case .invalidValue(let value, let context):
      let path = JSONPointer(tokens: context.codingPath.map(\.pointerToken)).description
      self = .unencodable(reason: "\(value) at \(path.isEmpty ? "the root" : path): \(context.debugDescription)")
    @unknown default:
      self = .unencodable(reason: "\(error)")
    }
  }
}


/// A record decoded straight into models, its header checked before the state is read.
struct DecodableRecord<Root: Model>: Decodable {
  let header: SnapshotHeader
  let root: Root

  init(from decoder: any Decoder) throws {
    header = try SnapshotHeader(from: decoder)
    try header.check(for: Root.self)
    root = try decoder.container(keyedBy: SnapshotHeader.CodingKeys.self).decode(Root.self, forKey: .state)
  }
}

extension SnapshotHeader {
  /// Refuses a record of another root type or of another schema.
  func check<Root: Model>(for type: Root.Type) throws {
    guard root == Root._$typeName else {
      throw SnapshotError.wrongRoot(expected: Root._$typeName, found: root)
    }
    guard schema == Root.schemaHash else {
      throw SnapshotError.incompatibleSchema(root: root, expected: Root.schemaHash, found: schema)
    }
  }
}

/// How snapshots are read.
enum SnapshotCoding {
  /// A decoder of one record: shared models are decoded once.
  static func decoder() -> JSONValueDecoder {
    var decoder = JSONValueDecoder()
    decoder.userInfo[.arborDecodedModels] = DecodedModels()
    return decoder
  }
}
