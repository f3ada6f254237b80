import ArborClient
import ArborJSON
import Foundation

/// Calls the tests of `todosd` (`Examples/Todos`) make over its socket.
enum TodosCalls {
  /// `todosd`, next to `counterfactd`.
  static func todosd() -> String {
    URL(fileURLWithPath: DaemonHarness.binary()).deletingLastPathComponent().appendingPathComponent("todosd").path
  }

  /// The items as the list holds them.
  static func items(_ client: ArborConnection) async throws -> JSONValue {
    try await client.call("state.get", ["path": "/items"])["value"] ?? .null
  }

  /// Calls `intent` on `target` (the root when nil) and returns the reply.
  @discardableResult
  static func intent(_ client: ArborConnection, _ intent: String, target: JSONValue? = nil, _ params: [String: JSONValue] = [:]) async throws
    -> JSONValue
  {
    var call: [String: JSONValue] = ["intent": .string(intent), "params": .object(params)]
    if let target { call["target"] = target }
    return try await client.call("intent.call", .object(call))
  }

  /// The error's name when `method` (`history.undo`, `history.redo`) is refused; nil when it succeeds.
  static func nothingLeft(_ client: ArborConnection, _ method: String) async -> String? {
    do {
      try await client.call(method)
      return nil
    } catch {
      return error.rpcError?.name
    }
  }
}
