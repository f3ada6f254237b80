import Foundation
import PostgresNIO

#if canImport(Glibc)
  import Glibc
#endif

/// A PostgreSQL database named the way libpq names one: `postgres://USER:PASSWORD@HOST:PORT/DB`
/// over TCP, or `postgresql:///DB?host=/run/postgresql` over the Unix socket in that
/// directory. The user defaults to the process's own, the port to 5432, the database to the
/// user's name.
///
/// ```swift
/// let address = try PostgresAddress("postgresql:///arbor?host=/run/postgresql")
/// print(address)   // postgresql://arbor@/arbor?host=/run/postgresql
/// ```
public struct PostgresAddress: Sendable, Hashable, CustomStringConvertible {
  /// The server's host name or address, for TCP; nil for a Unix socket.
  public var host: String?
  /// The directory of the server's Unix socket, for a Unix socket.
  public var socketDirectory: String?
  public var port: Int
  public var user: String
  public var password: String?
  public var database: String

  /// Whether `text` names a PostgreSQL database (its scheme is `postgres` or `postgresql`).
  public static func isAddress(_ text: String) -> Bool {
    text.hasPrefix("postgres://") || text.hasPrefix("postgresql://")
  }

  /// Reads a `postgres://` or `postgresql://` address; a malformed one throws an error that
  /// says what is wrong.
  public init(_ text: String) throws(PostgresAddressError) {
    guard Self.isAddress(text), let components = URLComponents(string: text) else {
      throw PostgresAddressError("\(text) is not a PostgreSQL address: write postgres://USER@HOST:PORT/DATABASE or postgresql:///DATABASE?host=/SOCKET/DIRECTORY")
    }
    var socketDirectory: String?
    var port = components.port ?? 5432
    for item in components.queryItems ?? [] {
      switch item.name {
      case "host":
        socketDirectory = item.value
      case "port":
        guard let value = item.value.flatMap(Int.init) else { throw PostgresAddressError("port=\(item.value ?? "") is not a port number") }
        port = value
      case "sslmode":
        guard item.value == "disable" || item.value == "prefer" || item.value == "allow" else {
          throw PostgresAddressError(
            "sslmode=\(item.value ?? "") is not supported: reach the server over a Unix socket, a private network or a tunnel, and write sslmode=disable")
        }
      default:
        throw PostgresAddressError("the parameter \(item.name) is not understood (known: host, port, sslmode)")
      }
    }
    let host = components.host.flatMap { $0.isEmpty ? nil : $0 }
    if let directory = socketDirectory, !directory.hasPrefix("/") {
      throw PostgresAddressError("host=\(directory) must be the absolute path of the directory of the server's Unix socket")
    }
    if host == nil && socketDirectory == nil {
      socketDirectory = "/run/postgresql"
    }
    let user = components.user.flatMap { $0.isEmpty ? nil : $0 } ?? Self.processUser
    var database = components.path
    if database.hasPrefix("/") { database.removeFirst() }
    guard !database.contains("/") else { throw PostgresAddressError("\(components.path) is not a database name") }
    self.host = socketDirectory == nil ? host : nil
    self.socketDirectory = socketDirectory
    self.port = port
    self.user = user
    self.password = components.password
    self.database = database.isEmpty ? user : database
  }

  /// The address without its password: what logs and `daemon.status` show.
  public var description: String {
    if let socketDirectory {
      return "postgresql://\(user)@/\(database)?host=\(socketDirectory)" + (port == 5432 ? "" : "&port=\(port)")
    }
    return "postgresql://\(user)@\(host ?? "localhost"):\(port)/\(database)"
  }

  /// The path of the server's Unix socket, when it is reached by one.
  public var socketPath: String? {
    socketDirectory.map { "\($0)/.s.PGSQL.\(port)" }
  }

  /// The configuration postgres-nio connects with.
  var configuration: PostgresConnection.Configuration {
    if let socketPath {
      return PostgresConnection.Configuration(unixSocketPath: socketPath, username: user, password: password, database: database)
    }
    return PostgresConnection.Configuration(
      host: host ?? "localhost", port: port, username: user, password: password, database: database, tls: .disable)
  }

  private static var processUser: String {
    if let entry = getpwuid(geteuid()), let name = entry.pointee.pw_name { return String(cString: name) }
    return "postgres"
  }
}

/// Why a PostgreSQL address cannot be used.
public struct PostgresAddressError: Error, Sendable, CustomStringConvertible {
  public var description: String
  init(_ description: String) { self.description = description }
}
