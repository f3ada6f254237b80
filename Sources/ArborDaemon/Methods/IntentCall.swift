import Arbor
import ArborJSON
import ArborRPC

/// The parameters of one `intent.call`, checked: which model, which intent, its
/// arguments, and how long to wait.
struct IntentCall: Sendable {
  let intent: String
  let target: IntentTarget
  let arguments: JSONValue
  let wait: IntentWait

  init(_ params: Params) throws(RPCError) {
    intent = try params.requiredString("intent")
    switch params.members["target"] {
    case nil, .null?:
      target = .root
    case .string(let path)?:
      target = .path(path)
    case .object(let members)? where members.count == 1:
      guard case .string(let text)? = members["id"], let id = ModelID(text) else {
        throw params.wrongType("target", expected: #"a JSON Pointer or {"id": "<16 hexadecimal digits>"}"#, found: .object(members))
      }
      target = .id(id)
    case let other?:
      throw params.wrongType("target", expected: #"a JSON Pointer or {"id": "<16 hexadecimal digits>"}"#, found: other)
    }
    switch params.members["params"] {
    case nil, .null?: arguments = [:]
    case .object(let members)?: arguments = .object(members)
    case let other?: throw params.wrongType("params", expected: "an object of the intent's parameters by name", found: other)
    }
    switch try params.string("wait") {
    case nil: wait = .committed
    case let text?:
      guard let wait = IntentWait(rawValue: text) else {
        throw RPCError.invalidParams(
          "parameter 'wait' of intent.call must be \"committed\" or \"settled\", not \"\(text)\"",
          data: ["name": .string(ArborError.invalidParameter.name), "parameter": "wait", "expected": "\"committed\" or \"settled\""])
      }
      self.wait = wait
    }
  }
}
