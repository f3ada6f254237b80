import ArgumentParser

/// Someone a role is granted to: a user id or a group id.
///
/// ```swift
/// let principals = try PrincipalList(parsing: "uid:1000,gid:50,1001")
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

  /// Reads `uid:N`, `gid:N` or a bare uid, separated by commas; spaces are ignored.
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
      } else {
        throw PrincipalListError(entry: String(entry))
      }
    }
    self.principals = principals
  }

  public var defaultValueDescription: String { principals.isEmpty ? "none" : description }

  public var description: String { principals.map(\.description).joined(separator: ",") }
}

/// An entry of a principal list that is neither `uid:N`, `gid:N` nor a number.
public struct PrincipalListError: Error, Sendable, CustomStringConvertible {
  public var entry: String
  public var description: String { "'\(entry)' is not uid:N, gid:N or a uid" }
}

extension Substring {
  fileprivate func trimmingCharacters(in set: Character) -> Substring {
    var result = self
    while result.first == set { result = result.dropFirst() }
    while result.last == set { result = result.dropLast() }
    return result
  }
}
