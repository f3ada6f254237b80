import ArborJSON
import ArborRPC
import ArborStorage
import Foundation

/// `intent.call` on a standby, forwarded to the leader through the store
/// (``StoreIntentForwarding``), and the leader's side: forwarded intents run as if sent to
/// its own socket.
extension RequestHandler {
  /// How long a standby waits for the leader's reply to a forwarded intent.
  static let forwardTimeout = Duration.seconds(30)

  /// Forwards `request` (an `intent.call`) to the leader and returns its reply, once this
  /// standby's state has the leader's revision (a read after the reply sees the write).
  func forward(_ request: RPCRequest) async -> Result<JSONValue, RPCError>? {
    guard let store = journal.store.intentForwarding else {
      return .failure(.internalError("a standby whose store forwards no intents"))
    }
    var text: [UInt8] = []
    (request.params ?? .object([:])).writeJSON(to: &text)
    // Named for what happened: not queued (nothing runs), or queued with no reply in
    // time (the leader may still run it).
    let id: Int64
    do throws(StoreError) {
      id = try await store.queueForwarded(request: String(decoding: text, as: UTF8.self))
    } catch {
      return .failure(ArborErrors.notForwarded(error, queued: false, store: store.location))
    }
    let reply: String
    do throws(StoreError) {
      reply = try await store.forwardedReply(of: id, timeout: Self.forwardTimeout)
    } catch {
      return .failure(ArborErrors.notForwarded(error, queued: true, store: store.location))
    }
    guard let value = try? JSONValue(parsing: Array(reply.utf8)), let response = RPCResponse(value) else {
      return .failure(.internalError("the leader's reply to a forwarded intent cannot be read: \(reply)"))
    }
    switch response.outcome {
    case .failure(let error):
      return .failure(error)
    case .success(let result):
      if let revision = result["revision"]?.intValue {
        let deadline = ContinuousClock.now + .seconds(5)
        while host.revision < UInt64(revision) && ContinuousClock.now < deadline {
          try? await Task.sleep(for: .milliseconds(2))
        }
      }
      return .success(result)
    }
  }

  /// Runs an intent a standby forwarded (its `intent.call` params as JSON text) as the
  /// leader runs its own socket's, and returns the JSON-RPC response as JSON text.
  func runForwarded(_ intent: ForwardedIntent) async -> String {
    let outcome: Result<JSONValue, RPCError>
    do throws(RPCError) {
      guard let params = try? JSONValue(parsing: Array(intent.request.utf8)) else {
        throw RPCError.invalidParams("the forwarded intent's parameters are not JSON")
      }
      let request = RPCRequest(method: ArborMethod.intentCall.rawValue, params: params, id: .null)
      let call = IntentInvocation(try IntentCall.Params(RequestParams(request, accepted: Method.intentCall.parameters)))
      if stopping.load(ordering: .relaxed) { throw ArborErrors.shuttingDown() }
      if let refusal = journal.refusal { throw ArborErrors.writesRefused(refusal) }
      outcome = await finish(call)
    } catch {
      outcome = .failure(error)
    }
    let response: RPCResponse
    switch outcome {
    case .success(let result): response = RPCResponse(id: .null, result: result)
    case .failure(let error): response = RPCResponse(id: .null, error: error)
    }
    var text: [UInt8] = []
    response.json.writeJSON(to: &text)
    return String(decoding: text, as: UTF8.self)
  }
}
