import ArborPostgres
import ServiceLifecycle

/// The leader's service for the intents standbys forward through the PostgreSQL store:
/// each runs as if it had been sent to the leader's own socket (``RequestHandler``), in
/// the order they were queued.
struct ForwardedIntentServer: Service {
  let store: PostgresStore
  let handler: RequestHandler

  func run() async throws {
    let handler = self.handler
    // Stops taking intents when the daemon stops; those taken meanwhile are refused
    // (`org.arbor.ShuttingDown`) and the standby's caller told so.
    await cancelWhenGracefulShutdown {
      await store.serveForwardedIntents { intent in await handler.runForwarded(intent) }
    }
  }
}
