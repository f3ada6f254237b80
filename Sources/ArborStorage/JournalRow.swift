import ArborJSON

/// A journal row as every backend stores it, encoded outside the transaction: the patch
/// as JSON text with its checksum, and the revision's undo history changes.
package struct JournalRow: Sendable {
  package var revision: Int64
  package var time: Double
  package var intent: String?
  package var target: String?
  package var patch: String
  package var checksum: Int64
  /// The revision's undo history changes (empty for almost every row).
  package var undo: [UndoRow]

  /// The rows of `entries`, in their order.
  package static func rows(_ entries: [JournalEntry]) -> [JournalRow] {
    var rows: [JournalRow] = []
    rows.reserveCapacity(entries.count)
    for entry in entries {
      let patch = entry.encodedPatch ?? entry.patch.jsonBytes
      rows.append(
        JournalRow(
          revision: Int64(bitPattern: entry.revision), time: entry.time.timeIntervalSince1970, intent: entry.intent,
          target: entry.target, patch: String(decoding: patch, as: UTF8.self), checksum: Checksum.of(patch),
          undo: entry.undoHistory.isEmpty ? [] : entry.undoHistory.map(UndoRow.init)))
    }
    return rows
  }
}
