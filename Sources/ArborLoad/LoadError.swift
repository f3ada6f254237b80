/// A failure of the load generator, with what went wrong: a connection refused or closed,
/// no reply in time, or a reply that was an error (quoted in the description).
///
/// ```swift
/// do {
///   _ = try LineLoad.roundTrips(socket: path, clients: 1, requests: 10, request: line)
/// } catch let error as LoadError where error.kind == .errorReply {
///   print("the daemon refused: \(error)")
/// }
/// ```
public struct LoadError: Error, CustomStringConvertible {
  /// What kind of failure it is, for a program to act on (an exit code, say).
  public enum Kind: Sendable, Equatable {
    /// The socket could not be connected to.
    case cannotConnect
    /// No reply came within the load generator's wait (10 s).
    case noReply
    /// The peer answered with an error; the description quotes the reply.
    case errorReply
    /// The peer closed a connection, or a system call failed.
    case failure
  }

  /// What kind of failure it is.
  public let kind: Kind
  /// What went wrong, in a sentence.
  public let description: String

  /// A failure of `kind` described by `description`.
  public init(_ description: String, kind: Kind = .failure) {
    self.kind = kind
    self.description = description
  }
}
