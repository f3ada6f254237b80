import Arbor
import ArborJSON
import ArborRPC

/// An `intent.call` ready to run: its `IntentCall.Params` (`ArborRPC`) as the host takes
/// them — which model, which intent, its arguments, and how long to wait.
struct IntentInvocation: Sendable {
  let intent: String
  let target: IntentTarget
  let arguments: JSONValue
  let wait: IntentWait

  init(_ params: IntentCall.Params) {
    intent = params.intent
    switch params.target {
    case nil: target = .root
    case .path(let path)?: target = .path(path)
    // Checked when the params were read.
    case .id(let text)?: target = ModelID(text).map(IntentTarget.id) ?? .path(text)
    }
    arguments = .object(params.params ?? [:])
    switch params.wait {
    case nil, .committed?: wait = .committed
    case .settled?: wait = .settled
    }
  }
}
