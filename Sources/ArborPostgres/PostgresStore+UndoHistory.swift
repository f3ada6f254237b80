import ArborRecords
import ArborStorage
import PostgresNIO

/// The kept undo history in `undo_steps`, changed in the journal transaction of the
/// revision that moved it, as the SQLite store does.
extension PostgresStore {
  func applyUndo(_ rows: [UndoRow], revision: Int64, on connection: PostgresConnection) async throws {
    let (undo, redo) = (UndoStack.undo.rawValue, UndoStack.redo.rawValue)
    for row in rows {
      switch row.operation {
      case .recorded(let limit):
        try await connection.query("DELETE FROM undo_steps WHERE stack = \(redo)", logger: logger)
        try await push(row, onto: .undo, revision: revision, on: connection)
        let keep = Int64(max(1, limit))
        try await connection.query(
          "DELETE FROM undo_steps WHERE stack = \(undo) AND position <= (SELECT MAX(position) FROM undo_steps WHERE stack = \(undo)) - \(keep)",
          logger: logger)
      case .undone:
        try await popTop(of: .undo, on: connection)
        try await push(row, onto: .redo, revision: revision, on: connection)
      case .redone:
        try await popTop(of: .redo, on: connection)
        try await push(row, onto: .undo, revision: revision, on: connection)
      case .cleared:
        try await connection.query("DELETE FROM undo_steps", logger: logger)
      }
    }
  }

  func replaceUndo(with history: UndoHistory, revision: Int64, on connection: PostgresConnection) async throws {
    try await connection.query("DELETE FROM undo_steps", logger: logger)
    for (stack, steps) in [(UndoStack.undo, history.undo), (.redo, history.redo)] {
      for (offset, step) in steps.enumerated() {
        let bytes = UndoRow.bytes(step)
        let (number, position, text, checksum) = (stack.rawValue, Int64(offset + 1), String(decoding: bytes, as: UTF8.self), Checksum.of(bytes))
        try await connection.query(
          "INSERT INTO undo_steps (stack, position, revision, step, checksum) VALUES (\(number), \(position), \(revision), \(text), \(checksum))",
          logger: logger)
      }
    }
  }

  private func push(_ row: UndoRow, onto stack: UndoStack, revision: Int64, on connection: PostgresConnection) async throws {
    let (number, step, checksum) = (stack.rawValue, row.step ?? "{\"parts\":[]}", row.checksum)
    try await connection.query(
      """
      INSERT INTO undo_steps (stack, position, revision, step, checksum)
      VALUES (\(number), COALESCE((SELECT MAX(position) FROM undo_steps WHERE stack = \(number)), 0) + 1, \(revision), \(step), \(checksum))
      """, logger: logger)
  }

  private func popTop(of stack: UndoStack, on connection: PostgresConnection) async throws {
    let number = stack.rawValue
    try await connection.query(
      "DELETE FROM undo_steps WHERE stack = \(number) AND position = (SELECT MAX(position) FROM undo_steps WHERE stack = \(number))",
      logger: logger)
  }

  /// The kept history, checked against `revision` (the newest state recovered).
  func readUndo(on connection: PostgresConnection, through revision: UInt64) async throws -> (history: UndoHistory, dropped: String?) {
    var rows: [(stack: Int64, revision: UInt64, step: String, checksum: Int64)] = []
    for try await (stack, stepRevision, step, checksum) in try await connection.query(
      "SELECT stack, revision, step, checksum FROM undo_steps ORDER BY stack, position", logger: logger
    ).decode((Int64, Int64, String, Int64).self) {
      rows.append((stack, UInt64(bitPattern: stepRevision), step, checksum))
    }
    return StoredRecords.undoHistory(rows: rows, through: revision)
  }
}
