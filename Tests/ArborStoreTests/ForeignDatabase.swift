import GRDB

/// An SQLite database of another program, for the store to refuse.
enum ForeignDatabase {
  static func create(at path: String) throws {
    let queue = try DatabaseQueue(path: path)
    try queue.write { db in
      try db.execute(sql: "CREATE TABLE recipes (id INTEGER PRIMARY KEY, name TEXT)")
      try db.execute(sql: "INSERT INTO recipes (name) VALUES ('bread')")
    }
  }
}
