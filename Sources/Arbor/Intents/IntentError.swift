/// Why an intent call failed. Each case names what to fix.
///
/// ```swift
/// do { _ = try await dispatcher.call("setCount", on: .path("/counter"), parameters: ["to": "x"]) }
/// catch { print(error) }   // parameter 'to' of setCount is invalid: expected Int, found a string
/// ```
public enum IntentError: Error, Sendable, Hashable, CustomStringConvertible {
  /// No model at the path, or with the id.
  case unknownTarget(String)
  /// The target model has no intent of that name.
  case unknownIntent(intent: String, modelType: String, available: [String])
  /// The parameters are not a JSON object.
  case parametersNotAnObject(intent: String, found: String)
  /// A parameter the intent does not take.
  case unknownParameter(intent: String, parameter: String, accepted: [String])
  /// A required parameter is absent.
  case missingParameter(intent: String, parameter: String)
  /// A parameter's value does not decode to its type.
  case invalidParameter(intent: String, parameter: String, reason: String)
  /// The intent threw: its error's type and description.
  case failed(intent: String, errorType: String, message: String)
  /// The intent's result could not be encoded.
  case resultNotEncodable(intent: String, reason: String)

  public var description: String {
    switch self {
    case .unknownTarget(let target):
      return "no model \(target)"
    case .unknownIntent(let intent, let modelType, let available):
      let list = available.isEmpty ? "it has none" : "it has " + available.joined(separator: ", ")
      return "\(modelType) has no intent '\(intent)' (\(list))"
    case .parametersNotAnObject(let intent, let found):
      return "the parameters of \(intent) must be a JSON object, not \(found)"
    case .unknownParameter(let intent, let parameter, let accepted):
      let list = accepted.isEmpty ? "it takes none" : "it takes " + accepted.joined(separator: ", ")
      return "\(intent) has no parameter '\(parameter)' (\(list))"
    case .missingParameter(let intent, let parameter):
      return "parameter '\(parameter)' of \(intent) is missing"
    case .invalidParameter(let intent, let parameter, let reason):
      return "parameter '\(parameter)' of \(intent) is invalid: \(reason)"
    case .failed(let intent, let errorType, let message):
      return "\(intent) failed with \(errorType): \(message)"
    case .resultNotEncodable(let intent, let reason):
      return "the result of \(intent) cannot be encoded: \(reason)"
    }
  }
}
