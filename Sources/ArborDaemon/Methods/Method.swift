import ArborRPC

/// The methods the daemon answers (``ArborMethod``, defined in `ArborRPC`), with the role
/// each needs.
typealias Method = ArborMethod

extension ArborMethod {
  var requiredRole: Role {
    switch self {
    case .discover, .status, .metrics, .stateGet, .stateSnapshot, .stateWatch, .eventsWatch, .watchCancel, .historyChanges, .stateAt:
      return .reader
    case .intentCall, .historyUndo, .historyRedo: return .operator
    case .stateRestore, .upgrade: return .admin
    }
  }
}
