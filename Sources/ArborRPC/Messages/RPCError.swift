import ArborJSON

/// A JSON-RPC 2.0 error object: a code, a one-line message, and data with the details.
///
/// Protocol faults use the codes the specification reserves; the daemon's own errors use
/// codes outside that range and carry a stable reverse-DNS name in `data.name`, which is
/// what programs should match on.
///
/// ```swift
/// let error = RPCError.methodNotFound("state.gett")
/// print(error.code, error.message)   // -32601 Method not found: state.gett
/// ```
public struct RPCError: Error, Sendable, Hashable, CustomStringConvertible {
  public var code: Int
  public var message: String
  public var data: JSONValue?

  public init(code: Int, message: String, data: JSONValue? = nil) {
    self.code = code
    self.message = message
    self.data = data
  }

  /// An application error: its code, its stable name (`org.arbor.…`) and details, merged
  /// into `data` with the name under `"name"`.
  public init(code: Int, name: String, message: String, details: [String: JSONValue] = [:]) {
    var data = details
    data["name"] = .string(name)
    self.init(code: code, message: message, data: .object(data))
  }

  /// The stable name in `data.name`, when there is one.
  public var name: String? {
    if case .object(let members) = data, case .string(let name)? = members["name"] { return name }
    return nil
  }

  public var description: String {
    if let name { return "\(message) [\(name), \(code)]" }
    return "\(message) [\(code)]"
  }

  /// The error object as JSON.
  public var json: JSONValue {
    var members: [String: JSONValue] = ["code": .int(Int64(code)), "message": .string(message)]
    if let data { members["data"] = data }
    return .object(members)
  }

  /// Reads an error object; nil when the value is not one.
  public init?(_ value: JSONValue) {
    guard case .object(let members) = value,
      case .int(let code)? = members["code"], case .string(let message)? = members["message"]
    else { return nil }
    self.init(code: Int(code), message: message, data: members["data"])
  }
}

// MARK: - The codes the specification reserves

extension RPCError {
  /// -32700: the line is not valid JSON (or not UTF-8). The reply's id is `null`.
  public static func parseError(_ detail: String) -> RPCError {
    RPCError(code: -32700, message: "Parse error: \(detail)")
  }

  /// -32600: the JSON is not a valid request object.
  public static func invalidRequest(_ detail: String) -> RPCError {
    RPCError(code: -32600, message: "Invalid Request: \(detail)")
  }

  /// -32601: no such method; `data.available` lists the methods there are, and the
  /// message names the one probably meant (``NameSuggestion``).
  ///
  /// ```swift
  /// RPCError.methodNotFound("state.gett", available: ["state.get"]).message
  /// // Method not found: state.gett (did you mean state.get?)
  /// ```
  public static func methodNotFound(_ method: String, available: [String] = []) -> RPCError {
    let meant = NameSuggestion.closest(to: method, among: available).map { " (did you mean \($0)?)" } ?? ""
    return RPCError(
      code: -32601, message: "Method not found: \(method)\(meant)",
      data: available.isEmpty ? nil : ["available": .array(available.map(JSONValue.string))])
  }

  /// -32602: the method's parameters are missing, unknown or of the wrong type.
  public static func invalidParams(_ detail: String, data: JSONValue? = nil) -> RPCError {
    RPCError(code: -32602, message: "Invalid params: \(detail)", data: data)
  }

  /// -32603: the daemon failed; the message says how.
  public static func internalError(_ detail: String) -> RPCError {
    RPCError(code: -32603, message: "Internal error: \(detail)")
  }
}
