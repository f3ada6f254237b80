import ServiceLifecycle

/// The ``ChangePump`` as a service: it carries the tree's changes to the watchers until
/// graceful shutdown reaches it, after the socket server has drained.
struct ChangePumpService: Service, CustomStringConvertible {
  var description: String { "ChangePump" }
  let pump: ChangePump

  func run() async {
    await cancelWhenGracefulShutdown { [pump] in await pump.run() }
  }
}
