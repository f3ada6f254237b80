/// What a connection may do. Each role includes the ones before it.
///
/// - `reader`: `rpc.discover`, `daemon.status`, `daemon.metrics`, `state.get`, `state.snapshot`, watches.
/// - `operator`: also `intent.call`.
/// - `admin`: also `state.restore`.
public enum Role: Int, Sendable, Comparable, CustomStringConvertible, CaseIterable {
  case reader = 1
  case `operator` = 2
  case admin = 3

  public static func < (lhs: Role, rhs: Role) -> Bool { lhs.rawValue < rhs.rawValue }

  public var description: String {
    switch self {
    case .reader: return "reader"
    case .operator: return "operator"
    case .admin: return "admin"
    }
  }
}
