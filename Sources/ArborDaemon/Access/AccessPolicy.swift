/// Maps a connection's peer credentials (read with `SO_PEERCRED`) to a role.
///
/// A peer gets the highest role that its uid, or its primary gid, is granted. The daemon's
/// own uid is always admin; anyone granted nothing has no role and every request of theirs
/// is refused with `org.arbor.PermissionDenied`.
///
/// ```swift
/// let policy = AccessPolicy(ownUID: 1000, readers: [.group(50)])
/// policy.role(uid: 1001, gid: 50)   // .reader
/// policy.role(uid: 1002, gid: 60)   // nil
/// ```
public struct AccessPolicy: Sendable, Hashable {
  public var ownUID: UInt32
  public var readers: [Principal]
  public var operators: [Principal]
  public var admins: [Principal]

  public init(ownUID: UInt32, readers: [Principal] = [], operators: [Principal] = [], admins: [Principal] = []) {
    self.ownUID = ownUID
    self.readers = readers
    self.operators = operators
    self.admins = admins
  }

  /// The role of a peer, or nil when it has none.
  public func role(uid: UInt32, gid: UInt32) -> Role? {
    if uid == ownUID { return .admin }
    func granted(_ list: [Principal]) -> Bool {
      list.contains { principal in
        switch principal {
        case .user(let granted): return granted == uid
        case .group(let granted): return granted == gid
        }
      }
    }
    if granted(admins) { return .admin }
    if granted(operators) { return .operator }
    if granted(readers) { return .reader }
    return nil
  }
}
