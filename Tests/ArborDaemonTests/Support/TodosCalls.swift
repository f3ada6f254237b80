import ArborClient
import ArborTesting
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
    try await withDeadline("the reply to state.get /items", seconds: 60) {
      try await client.call("state.get", ["path": "/items"])["value"] ?? .null
    }
  }

  /// Calls `method` (`history.undo`, `history.redo`) and returns its reply, within 60 s.
  @discardableResult
  static func step(_ client: ArborConnection, _ method: String) async throws -> JSONValue {
    try await withDeadline("the reply to \(method)", seconds: 60) { try await client.call(method) }
  }

  /// Calls `intent` on `target` (the root when nil) and returns the reply.
  @discardableResult
  static func intent(_ client: ArborConnection, _ intent: String, target: JSONValue? = nil, _ params: [String: JSONValue] = [:]) async throws
    -> JSONValue
  {
    var call: [String: JSONValue] = ["intent": .string(intent), "params": .object(params)]
    if let target { call["target"] = target }
    return try await withDeadline("the reply to the intent \(intent)", seconds: 60) { [call] in
      try await client.call("intent.call", .object(call))
    }
  }

  /// The error's name when `method` (`history.undo`, `history.redo`) is refused; nil when it succeeds.
  static func nothingLeft(_ client: ArborConnection, _ method: String) async -> String? {
    do {
      try await step(client, method)
      return nil
    } catch {
      return (error as? ArborClientError)?.rpcError?.name
    }
  }
}
