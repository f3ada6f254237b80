import ArborJSON
import ArborRecords

extension SnapshotRecord {
  /// Brings the record to `entry`'s revision: its patch applied to the state, its time as
  /// the record's. False, and the record unchanged in revision, when the entry is not the
  /// next revision; throws when its patch does not apply (the state may then hold part of
  /// it).
  ///
  /// ```swift
  /// for entry in newer { guard try record.apply(entry) else { break } }
  /// ```
  package mutating func apply(_ entry: JournalEntry) throws -> Bool {
    guard entry.revision == revision + 1 else { return false }
    try entry.patch.apply(to: &state)
    revision = entry.revision
    createdAt = entry.time
    return true
  }
}
