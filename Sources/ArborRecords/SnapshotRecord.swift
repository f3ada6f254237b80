import ArborJSON
import Foundation

/// A tree's state at one revision, with what is needed to restore it safely.
///
/// ```json
/// {"format": 1, "root": "AppModel", "schema": "sha256:…", "revision": 1234,
///  "createdAt": "2026-11-22T13:00:00Z", "state": {"id": "…", "counters": []}}
/// ```
///
/// ```swift
/// let data = try anchor.snapshot()                        // encoded record
/// let (model, restored) = try AppModel.andAnchor(restoring: data)
/// ```
public struct SnapshotRecord: Sendable, Hashable, Codable {
  /// The record layout this build writes and reads.
  public static let currentFormat = 1

  /// The version of the record layout.
  public var format: Int
  /// The root model's type name, e.g. `AppModel`.
  public var root: String
  /// The hash of the JSON Schema of the root's state (`sha256:…`): a record written by a
  /// model whose state has another shape has another hash.
  public var schema: String
  /// The tree's revision when the record was taken.
  public var revision: UInt64
  /// When the record was taken, to the second (as it is written: ISO 8601, UTC).
  public var createdAt: Date
  /// The root's state: nested objects by property name, each model carrying its `id`.
  public var state: JSONValue

  public init(format: Int = SnapshotRecord.currentFormat, root: String, schema: String, revision: UInt64, createdAt: Date, state: JSONValue) {
    self.format = format
    self.root = root
    self.schema = schema
    self.revision = revision
    self.createdAt = createdAt.wholeSeconds
    self.state = state
  }

  package enum CodingKeys: String, CodingKey {
    case format, root, schema, revision, createdAt, state
  }

  public init(from decoder: any Decoder) throws {
    let header = try SnapshotHeader(from: decoder)
    format = header.format
    root = header.root
    schema = header.schema
    revision = header.revision
    createdAt = header.createdAt
    state = try decoder.container(keyedBy: CodingKeys.self).decode(JSONValue.self, forKey: .state)
  }

  public func encode(to encoder: any Encoder) throws {
    try SnapshotHeader(format: format, root: root, schema: schema, revision: revision, createdAt: createdAt)
      .record(state: state).encode(to: encoder)
  }
}

/// The fields of a record besides its state, decoded and checked first (by the runtime,
/// which takes and restores snapshots).
package struct SnapshotHeader {
  package var format: Int
  package var root: String
  package var schema: String
  package var revision: UInt64
  package var createdAt: Date

  package typealias CodingKeys = SnapshotRecord.CodingKeys

  package init(format: Int, root: String, schema: String, revision: UInt64, createdAt: Date) {
    self.format = format
    self.root = root
    self.schema = schema
    self.revision = revision
    self.createdAt = createdAt.wholeSeconds
  }

  /// Decodes the header; the format is checked before anything else is read.
  package init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    format = try container.decode(Int.self, forKey: .format)
    guard format == SnapshotRecord.currentFormat else {
      throw SnapshotError.unsupportedFormat(found: format, supported: SnapshotRecord.currentFormat)
    }
    root = try container.decode(String.self, forKey: .root)
    schema = try container.decode(String.self, forKey: .schema)
    // A record's integers are JSON's 64-bit signed ones (ArborJSON's `.int`): a revision
    // beyond them could not be written back. ArborJSON reads a larger integer as a `Double`,
    // which no `UInt64` decode takes: refused with the same words as one that does.
    let beyond = { (revision: String) in
      DecodingError.dataCorruptedError(
        forKey: .revision, in: container, debugDescription: "the revision \(revision) is beyond \(Int64.max), the largest a record holds")
    }
    do {
      revision = try container.decode(UInt64.self, forKey: .revision)
    } catch let error as DecodingError {
      guard case .dataCorrupted = error, let number = try? container.decode(Double.self, forKey: .revision), number >= 0x1p63
      else { throw error }
      throw beyond("\(number)")
    }
    guard revision <= UInt64(Int64.max) else { throw beyond("\(revision)") }
    let text = try container.decode(String.self, forKey: .createdAt)
    guard let date = try? Date(text, strategy: .iso8601) else {
      throw DecodingError.dataCorruptedError(
        forKey: .createdAt, in: container, debugDescription: "'\(text)' is not an ISO 8601 date such as 2026-11-22T13:00:00Z")
    }
    createdAt = date
  }
}

extension SnapshotHeader {
  /// The whole record as a JSON value: the one place the record's fields are written.
  /// A revision beyond `Int64.max` (a tree anchored there by hand) is an encoding error,
  /// as it is refused when read.
  package func record(state: JSONValue) throws(EncodingError) -> JSONValue {
    guard let revision = Int64(exactly: revision) else {
      throw EncodingError.invalidValue(
        self.revision, .init(codingPath: [CodingKeys.revision], debugDescription: "the revision \(self.revision) is beyond \(Int64.max), the largest a record holds"))
    }
    return [
      "format": .int(Int64(format)), "root": .string(root), "schema": .string(schema),
      "revision": .int(revision), "createdAt": .string(createdAt.formatted(.iso8601)), "state": state,
    ]
  }
}

extension Date {
  /// This date without its fraction of a second: what an ISO 8601 timestamp keeps, so a
  /// record equals itself read back.
  var wholeSeconds: Date {
    Date(timeIntervalSince1970: timeIntervalSince1970.rounded(.down))
  }
}
