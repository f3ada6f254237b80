import GRDB

/// The store's tables, created and upgraded by GRDB's migrator.
///
/// - `store_info`: the layout version, the root model type and its schema hash.
/// - `snapshots`: one row per complete snapshot record (its size and checksum); the row is
///   written after the record's parts, so a snapshot cut short by a crash has no row.
/// - `snapshot_parts`: the encoded records, in parts written one transaction each, so that
///   the journal's transactions go on between them while a large snapshot is written.
/// - `journal`: every committed revision after the oldest snapshot kept, with its patch and
///   the patch's checksum.
/// - `undo_steps` (layout 2): the tree's kept undo history, a row per step, changed in the
///   transaction of the revision that moved it.
enum StoreSchema {
  /// The layout this build writes; a store of a higher one is refused.
  static let format = 2

  static var migrator: DatabaseMigrator {
    var migrator = DatabaseMigrator()
    migrator.registerMigration("v1") { db in
      try db.create(table: "store_info") { table in
        table.primaryKey("key", .text)
        table.column("value", .text).notNull()
      }
      try db.create(table: "snapshots") { table in
        table.primaryKey("revision", .integer)
        table.column("created_at", .double).notNull()
        table.column("size", .integer).notNull()
        table.column("parts", .integer).notNull()
        table.column("checksum", .integer).notNull()
      }
      try db.create(table: "snapshot_parts") { table in
        table.column("revision", .integer).notNull()
        table.column("part", .integer).notNull()
        table.column("bytes", .blob).notNull()
        table.primaryKey(["revision", "part"])
      }
      try db.create(table: "journal") { table in
        table.primaryKey("revision", .integer)
        table.column("time", .double).notNull()
        table.column("intent", .text)
        table.column("target", .text)
        table.column("patch", .text).notNull()
        table.column("checksum", .integer).notNull()
      }
    }
    // Layout 2: the kept undo history (see `Store+UndoHistory.swift`).
    migrator.registerMigration("v2") { db in
      try db.create(table: "undo_steps") { table in
        table.column("stack", .integer).notNull()
        table.column("position", .integer).notNull()
        table.column("revision", .integer).notNull()
        table.column("step", .text).notNull()
        table.column("checksum", .integer).notNull()
        table.primaryKey(["stack", "position"])
      }
    }
    return migrator
  }
}
