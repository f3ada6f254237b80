/// The methods the daemon answers, with the role each needs and the parameters it takes.
enum Method: String, CaseIterable, Sendable {
  case discover = "rpc.discover"
  case status = "daemon.status"
  case stateGet = "state.get"
  case stateSnapshot = "state.snapshot"
  case stateRestore = "state.restore"
  case intentCall = "intent.call"
  case stateWatch = "state.watch"
  case eventsWatch = "events.watch"
  case watchCancel = "watch.cancel"
  case historyChanges = "history.changes"
  case stateAt = "state.at"
  case historyUndo = "history.undo"
  case historyRedo = "history.redo"

  var requiredRole: Role {
    switch self {
    case .discover, .status, .stateGet, .stateSnapshot, .stateWatch, .eventsWatch, .watchCancel, .historyChanges, .stateAt:
      return .reader
    case .intentCall, .historyUndo, .historyRedo: return .operator
    case .stateRestore: return .admin
    }
  }

  var parameters: [String] {
    switch self {
    case .discover, .status, .stateSnapshot, .historyUndo, .historyRedo: return []
    case .stateGet: return ["path"]
    case .stateRestore: return ["record"]
    case .intentCall: return ["target", "intent", "params", "wait"]
    case .stateWatch: return ["path", "since"]
    case .eventsWatch: return ["path", "types"]
    case .watchCancel: return ["subscription"]
    case .historyChanges: return ["since", "limit"]
    case .stateAt: return ["revision", "path"]
    }
  }

  /// Watches queue their own reply ahead of their notifications, so they cannot be part
  /// of a batch, whose replies travel together.
  var canBeBatched: Bool { self != .stateWatch && self != .eventsWatch }
}
