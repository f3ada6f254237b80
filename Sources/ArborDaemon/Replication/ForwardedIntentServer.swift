import ArborStorage
import ServiceLifecycle

/// The leader's service for the intents standbys forward through its store
/// (``StoreIntentForwarding``): each runs as if it had been sent to the leader's own socket
/// (``RequestHandler``), in the order they were queued.
struct ForwardedIntentServer: Service {
  let store: any StoreIntentForwarding
  let handler: RequestHandler

  func run() async throws {
    let handler = self.handler
    let serving = Task { await store.serveForwardedIntents { intent in await handler.runForwarded(intent) } }
    // When the daemon stops (or steps down) the service ends at once: the serving task is
    // cancelled, and a call to the server it is waiting on (which a cut network can hold
    // for long) ends it later, or the step-down ends the term it serves in. Intents taken
    // meanwhile are refused (`org.arbor.ShuttingDown`) and the standby's caller told so.
    try? await gracefulShutdown()
    serving.cancel()
  }
}
