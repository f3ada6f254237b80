import GRDB

/// The store's tables, created and upgraded by GRDB's migrator.
///
/// - `store_info`: the layout version, the root model type and its schema hash.
/// - `snapshots`: snapshot records by revision (the newest is where a start begins).
/// - `journal`: every committed revision after the oldest snapshot kept.
enum StoreSchema {
  /// The layout this build writes; a store of a higher one is refused.
  static let format = 1

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
        table.column("record", .blob).notNull()
      }
      try db.create(table: "journal") { table in
        table.primaryKey("revision", .integer)
        table.column("time", .double).notNull()
        table.column("intent", .text)
        table.column("target", .text)
        table.column("patch", .text).notNull()
      }
    }
    return migrator
  }
}
