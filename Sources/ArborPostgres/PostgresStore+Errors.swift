import ArborStorage
import NIOCore
import NIOPosix
import PostgresNIO

extension PostgresStore {
  /// What a failure of PostgreSQL or of the connection to it means for the store, said so
  /// that the user knows what to do.
  static func classify(_ error: any Error, location: String) -> StoreError {
    if let error = error as? StoreError { return error }
    if error is CancellationError { return StoreError(.cancelled, path: location, "cancelled") }
    if let error = error as? PostgresTransactionError {
      if let inner = error.closureError ?? error.beginError ?? error.commitError { return classify(inner, location: location) }
      return StoreError(.io, path: location, "a transaction failed: \(error)")
    }
    if let error = error as? PSQLError {
      switch error.code {
      case .server:
        let state = error.serverInfo?[.sqlState] ?? ""
        let message = error.serverInfo?[.message] ?? "\(error)"
        switch state {
        case "23505":
          return StoreError(
            .superseded, path: location,
            "another daemon wrote this revision first (\(message)): another daemon leads this store now, and this one writes nothing more")
        case "53100":
          return StoreError(.full, path: location, "PostgreSQL's disk is full (\(message)): free space on the server; writes resume once a write succeeds")
        case "25006":
          return StoreError(
            .readOnly, path: location,
            "the server accepts no writes (\(message)): is it a standby server? Point --store at the primary")
        case "3D000":
          return StoreError(
            .io, path: location, "\(message): create the database first (createdb), or point --store at an existing one")
        case "28000", "28P01":
          return StoreError(.io, path: location, "PostgreSQL refused the login (\(message)): check the user and password in --store, and pg_hba.conf")
        case let state where state.hasPrefix("57P") || state.hasPrefix("08"):
          return StoreError(.unreachable, path: location, "PostgreSQL ended the connection (\(message)); it is made again at the next write")
        default:
          return StoreError(.io, path: location, "PostgreSQL failed: \(message) (SQLSTATE \(state))")
        }
      case .connectionError, .serverClosedConnection, .clientClosedConnection, .uncleanShutdown:
        return StoreError(
          .unreachable, path: location,
          "the connection to PostgreSQL was lost or refused (\(error.code)): is the server running, and is --store's address right?")
      default:
        return StoreError(.io, path: location, "PostgreSQL failed: \(error.code)")
      }
    }
    if error is IOError || error is NIOConnectionError || error is ChannelError {
      return StoreError(
        .unreachable, path: location, "PostgreSQL cannot be reached (\(error)): is the server running, and is --store's address right?")
    }
    return StoreError(.io, path: location, "\(error)")
  }
}
