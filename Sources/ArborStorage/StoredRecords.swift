import ArborJSON
import ArborRecords
import Foundation

/// How every backend turns its stored rows back into values, with the same checks and the
/// same messages: a checksum that does not match, a record that cannot be read, a gap in
/// the journal. The backends only fetch the rows.
package enum StoredRecords {
  /// Where the rows are (a file path, a database address) and what to do about damage
  /// there, said after what was found.
  package struct Place: Sendable {
    package var location: String
    /// Lower case, ending with a full stop.
    package var advice: String
    package init(location: String, advice: String) {
      self.location = location
      self.advice = advice
    }
  }

  /// A journal row's patch, checked against its checksum.
  package static func patch(text: String, checksum: Int64, revision: UInt64, at place: Place) throws(StoreError) -> JSONPatch {
    let bytes = Array(text.utf8)
    guard Checksum.of(bytes) == checksum else {
      throw StoreError(
        .damaged, path: place.location,
        "revision \(revision) of the journal does not match its checksum (its bytes were changed): \(place.advice)")
    }
    do {
      return try JSONPatch(json: JSONValue(parsing: bytes))
    } catch {
      throw StoreError(.damaged, path: place.location, "revision \(revision) of the journal cannot be read (\(error)): \(place.advice)")
    }
  }

  /// A snapshot record from its parts, checked against the size, part count and checksum
  /// of its row.
  package static func snapshot(
    bytes: [UInt8], partsRead: Int, size: Int, parts: Int, checksum: Int64, revision: UInt64, at place: Place
  ) throws(StoreError) -> SnapshotRecord {
    func damaged(_ what: String) -> StoreError {
      StoreError(.damaged, path: place.location, "the snapshot of revision \(revision) \(what): \(place.advice)")
    }
    guard partsRead == parts, bytes.count == size else {
      throw damaged("is incomplete (\(partsRead) of \(parts) parts, \(bytes.count) of \(size) bytes)")
    }
    guard Checksum.of(bytes) == checksum else { throw damaged("does not match its checksum (its bytes were changed)") }
    do {
      return try JSONValueDecoder().decode(SnapshotRecord.self, from: JSONValue(parsing: bytes))
    } catch {
      throw damaged("cannot be read (\(error))")
    }
  }

  /// The error for a snapshot row that is not there.
  package static func missingSnapshot(_ revision: UInt64, at place: Place) -> StoreError {
    StoreError(.damaged, path: place.location, "the snapshot of revision \(revision) is missing: \(place.advice)")
  }

  /// The error for a journal that has revisions but no snapshot to apply them to.
  package static func journalWithoutSnapshot(first: UInt64, at place: Place) -> StoreError {
    StoreError(
      .damaged, path: place.location,
      "the journal holds revision \(first) but there is no snapshot to apply it to: \(place.advice)")
  }

  /// A state being rebuilt from a snapshot by the journal rows after it, in order.
  package struct Replay {
    package private(set) var record: SnapshotRecord
    package private(set) var replayed = 0
    let place: Place

    package init(onto snapshot: SnapshotRecord, at place: Place) {
      self.record = snapshot
      self.place = place
    }

    /// Applies the next journal row; a gap, a checksum or a patch that does not apply is
    /// ``StoreError/Kind/damaged``.
    package mutating func apply(revision next: UInt64, time: Double, patch text: String, checksum: Int64) throws(StoreError) {
      guard next == record.revision + 1 else {
        throw StoreError(
          .damaged, path: place.location,
          "the journal jumps from revision \(record.revision) to \(next): revisions are missing. \(place.advice.prefix(1).uppercased())\(place.advice.dropFirst())"
        )
      }
      let patch = try StoredRecords.patch(text: text, checksum: checksum, revision: next, at: place)
      do {
        try patch.apply(to: &record.state)
      } catch {
        throw StoreError(
          .damaged, path: place.location, "revision \(next) of the journal cannot be applied (\(error)): \(place.advice)")
      }
      record.revision = next
      record.createdAt = Date(timeIntervalSince1970: time)
      replayed += 1
    }
  }

  /// The kept undo history from its rows (stack 0 is undo, 1 redo; in order), checked
  /// against `revision`, the newest state recovered: a step from a later revision, or one
  /// whose JSON does not match its checksum, drops the whole history, with the reason.
  package static func undoHistory(
    rows: [(stack: Int64, revision: UInt64, step: String, checksum: Int64)], through revision: UInt64
  ) -> (history: UndoHistory, dropped: String?) {
    var history = UndoHistory()
    for row in rows {
      guard row.revision <= revision else {
        return (UndoHistory(), "a step was kept for revision \(row.revision), after the newest state (revision \(revision))")
      }
      let bytes = Array(row.step.utf8)
      guard Checksum.of(bytes) == row.checksum else {
        return (UndoHistory(), "the step kept for revision \(row.revision) does not match its checksum")
      }
      let step: UndoStep
      do {
        step = try JSONValueDecoder().decode(UndoStep.self, from: JSONValue(parsing: bytes))
      } catch {
        return (UndoHistory(), "the step kept for revision \(row.revision) cannot be read (\(error))")
      }
      if row.stack == 0 { history.undo.append(step) } else { history.redo.append(step) }
    }
    return (history, nil)
  }
}
