import ArgumentParser

#if canImport(Glibc)
  import Glibc
#endif

/// Someone a role is granted to: a user id or a group id.
///
/// ```swift
/// let principals = try PrincipalList(parsing: "uid:1000,gid:50,1001,group:arbor")
/// ```
public enum Principal: Sendable, Hashable, CustomStringConvertible {
  case user(UInt32)
  case group(UInt32)

  public var description: String {
    switch self {
    case .user(let uid): return "uid:\(uid)"
    case .group(let gid): return "gid:\(gid)"
    }
  }
}

/// A comma-separated list of principals, as given on the command line.
public struct PrincipalList: Sendable, Hashable, ExpressibleByArgument, CustomStringConvertible {
  public var principals: [Principal]

  public init(_ principals: [Principal] = []) { self.principals = principals }

  public init?(argument: String) {
    guard let list = try? PrincipalList(parsing: argument) else { return nil }
    self = list
  }

  /// Reads `uid:N`, `gid:N`, `user:NAME`, `group:NAME` or a bare uid, separated by commas;
  /// spaces are ignored. Names are looked up when the list is read (at start), so that a
  /// unit file can name a group that `sysusers.d` creates.
  public init(parsing text: String) throws(PrincipalListError) {
    var principals: [Principal] = []
    for item in text.split(separator: ",") {
      let entry = item.trimmingCharacters(in: " ")
      if entry.hasPrefix("uid:"), let uid = UInt32(entry.dropFirst(4)) {
        principals.append(.user(uid))
      } else if entry.hasPrefix("gid:"), let gid = UInt32(entry.dropFirst(4)) {
        principals.append(.group(gid))
      } else if let uid = UInt32(entry) {
        principals.append(.user(uid))
      } else if entry.hasPrefix("user:"), !entry.dropFirst(5).isEmpty {
        guard let uid = Self.userID(named: String(entry.dropFirst(5))) else {
          throw PrincipalListError(entry: String(entry), reason: "names no user on this system")
        }
        principals.append(.user(uid))
      } else if entry.hasPrefix("group:"), !entry.dropFirst(6).isEmpty {
        guard let gid = Self.groupID(named: String(entry.dropFirst(6))) else {
          throw PrincipalListError(entry: String(entry), reason: "names no group on this system")
        }
        principals.append(.group(gid))
      } else {
        throw PrincipalListError(entry: String(entry))
      }
    }
    self.principals = principals
  }

  static func userID(named name: String) -> UInt32? {
    var entry = passwd()
    var result: UnsafeMutablePointer<passwd>?
    var buffer = [CChar](repeating: 0, count: 4096)
    guard getpwnam_r(name, &entry, &buffer, buffer.count, &result) == 0, result != nil else { return nil }
    return entry.pw_uid
  }

  static func groupID(named name: String) -> UInt32? {
    var entry = group()
    var result: UnsafeMutablePointer<group>?
    var buffer = [CChar](repeating: 0, count: 4096)
    guard getgrnam_r(name, &entry, &buffer, buffer.count, &result) == 0, result != nil else { return nil }
    return entry.gr_gid
  }

  public var defaultValueDescription: String { principals.isEmpty ? "none" : description }

  public var description: String { principals.map(\.description).joined(separator: ",") }
}

/// An entry of a principal list that is not `uid:N`, `gid:N`, `user:NAME`, `group:NAME` or
/// a number, or names no user or group.
public struct PrincipalListError: Error, Sendable, CustomStringConvertible {
  public var entry: String
  public var reason: String = "is not uid:N, gid:N, user:NAME, group:NAME or a uid"
  public var description: String { "'\(entry)' \(reason)" }
}

extension Substring {
  fileprivate func trimmingCharacters(in set: Character) -> Substring {
    var result = self
    while result.first == set { result = result.dropFirst() }
    while result.last == set { result = result.dropLast() }
    return result
  }
}
