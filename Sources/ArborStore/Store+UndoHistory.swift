import ArborJSON
import ArborRecords
import ArborStorage
import Foundation
import GRDB

/// The tree's undo history, kept in the table `undo_steps` (a row per step: which stack,
/// its place, the revision that put it there, its JSON and the JSON's checksum).
///
/// The table changes in the transaction that appends the revision whose change set moved
/// the history (``JournalEntry/undoHistory``), so it always matches the newest journalled
/// revision; a snapshot the journal rebases on replaces it whole
/// (``Store/saveSnapshot(encoded:revision:createdAt:keepingFrom:undoHistory:)``).
extension Store {
  /// Applies one revision's history changes. In the journal's transaction.
  static func applyUndo(_ rows: [UndoRow], revision: Int64, in db: Database) throws {
    for row in rows {
      switch row.operation {
      case .recorded(let limit):
        try db.execute(sql: "DELETE FROM undo_steps WHERE stack = ?", arguments: [UndoStack.redo.rawValue])
        try push(row, onto: .undo, revision: revision, in: db)
        try db.execute(
          sql: "DELETE FROM undo_steps WHERE stack = ? AND position <= (SELECT MAX(position) FROM undo_steps WHERE stack = ?) - ?",
          arguments: [UndoStack.undo.rawValue, UndoStack.undo.rawValue, max(1, limit)])
      case .undone:
        try popTop(of: .undo, in: db)
        try push(row, onto: .redo, revision: revision, in: db)
      case .redone:
        try popTop(of: .redo, in: db)
        try push(row, onto: .undo, revision: revision, in: db)
      case .cleared:
        try db.execute(sql: "DELETE FROM undo_steps")
      }
    }
  }

  /// Replaces the whole history with `history`, as of `revision`.
  static func replaceUndo(with history: UndoHistory, revision: Int64, in db: Database) throws {
    try db.execute(sql: "DELETE FROM undo_steps")
    for (stack, steps) in [(UndoStack.undo, history.undo), (.redo, history.redo)] {
      for (offset, step) in steps.enumerated() {
        let bytes = UndoRow.bytes(step)
        try db.execute(
          sql: "INSERT INTO undo_steps (stack, position, revision, step, checksum) VALUES (?, ?, ?, ?, ?)",
          arguments: [stack.rawValue, offset + 1, revision, String(decoding: bytes, as: UTF8.self), Checksum.of(bytes)])
      }
    }
  }

  private static func push(_ row: UndoRow, onto stack: UndoStack, revision: Int64, in db: Database) throws {
    try db.execute(
      sql: """
        INSERT INTO undo_steps (stack, position, revision, step, checksum)
        VALUES (?, COALESCE((SELECT MAX(position) FROM undo_steps WHERE stack = ?), 0) + 1, ?, ?, ?)
        """,
      arguments: [stack.rawValue, stack.rawValue, revision, row.step ?? "{\"parts\":[]}", row.checksum])
  }

  private static func popTop(of stack: UndoStack, in db: Database) throws {
    try db.execute(
      sql: "DELETE FROM undo_steps WHERE stack = ? AND position = (SELECT MAX(position) FROM undo_steps WHERE stack = ?)",
      arguments: [stack.rawValue, stack.rawValue])
  }

  /// The kept undo history, checked against `revision` (the newest state recovered): a
  /// step from a later revision or whose JSON does not match its checksum makes the whole
  /// history unusable, and it is dropped with the reason.
  static func readUndo(_ db: Database, through revision: UInt64) throws -> (history: UndoHistory, dropped: String?) {
    let rows = try Row.fetchAll(db, sql: "SELECT stack, revision, step, checksum FROM undo_steps ORDER BY stack, position").map {
      (stack: $0["stack"] as Int64, revision: UInt64(bitPattern: $0["revision"] as Int64), step: $0["step"] as String, checksum: $0["checksum"] as Int64)
    }
    return StoredRecords.undoHistory(rows: rows, through: revision)
  }
}
