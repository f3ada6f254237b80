import ArborLocking
import Logging
import NIOCore

#if canImport(Glibc)
  import Glibc
#endif

/// The process's file descriptors shared out among its connections, so that running out of
/// them is met at accept time and never inside the runtime: when libdispatch cannot open
/// `/proc/self/task/…` it traps, and the daemon dies.
///
/// - Every accepted socket of every listener counts from its accept to its close, refused
///   or not (``AcceptGate`` counts it), and so do the two ends of an inspector WebSocket's
///   socket pair: together at most ``connectionLimit`` (`RLIMIT_NOFILE` less ``headroom``,
///   left to the journal, the store, the runtime and the logs). At the limit a listener
///   stops accepting (its connections wait in the kernel's backlog) until one closes.
/// - HTTP connections are served up to ``httpLimit`` (half of it, and `--max-connections`);
///   past it each is answered 503, with at most ``refusalsInFlight`` such answers under
///   way before the HTTP listener stops accepting too. The socket's clients keep the rest.
/// - A few descriptors are held in reserve from the start. When an accept fails anyway
///   (`EMFILE`, `ENFILE`: something else took the rest), the reserve is let go, so that the
///   runtime has some to work with, the failure is logged once, and no listener accepts
///   until the reserve can be taken back (tried at most once a second).
///
/// One per process, as the limit is.
///
/// ```swift
/// guard DescriptorBudget.shared.admitHTTP(limit: 1_024, peer: peer, logger: logger) else { return refuse(channel) }
/// channel.closeFuture.whenComplete { _ in DescriptorBudget.shared.releaseHTTP() }
/// ```
final class DescriptorBudget: Sendable {
  /// The process's budget, set from `RLIMIT_NOFILE` at first use.
  static let shared = DescriptorBudget(limit: raisedDescriptorLimit())

  /// How many descriptors the reserve holds.
  static let reserveSize = 8
  /// How many HTTP connections past ``httpLimit`` may be being answered 503 at once.
  static let refusalsInFlight = 16

  /// `RLIMIT_NOFILE`'s soft limit, raised to the hard one at start when it is lower.
  let limit: Int
  /// Descriptors no connection may take: an eighth of the limit, at least 48, at most 1,024.
  let headroom: Int
  /// The descriptors all connections may hold together.
  var connectionLimit: Int { max(1, limit - headroom) }
  /// The HTTP connections served at once: half of ``connectionLimit``.
  var httpLimit: Int { max(1, connectionLimit / 2) }

  private struct State {
    /// Accepted sockets not yet closed, and bridges' socket pairs' ends.
    var descriptors = 0
    /// Accepted HTTP sockets not yet closed (served or being refused).
    var http = 0
    /// HTTP connections served.
    var httpServed = 0
    /// The reserve's descriptors; empty once let go.
    var reserve: [Int32] = []
    /// When the reserve was let go; nil while it is held.
    var releasedAt: ContinuousClock.Instant?
    /// A refusal was logged since an HTTP connection was last served.
    var refusalLogged = false
    /// A pause of accepting was logged since a listener last accepted.
    var pauseLogged = false
  }

  private let state: LockedState<State>

  init(limit: Int) {
    self.limit = limit
    headroom = min(1_024, max(48, limit / 8))
    state = LockedState(State(reserve: Self.openReserve(Self.reserveSize)))
  }

  deinit {
    for descriptor in state.withLock({ $0.reserve }) { close(descriptor) }
  }

  // MARK: Accepting

  /// Whether a listener (the HTTP one with `http`) may accept now. The first time it may
  /// not, since it last could, is logged.
  func mayAccept(http: Bool, logger: Logger) -> Bool {
    let (may, pause) = decide(loggedIn: \.pauseLogged) { state in
      if state.releasedAt != nil, !Self.retake(&state) {
        return "the process ran out of file descriptors (RLIMIT_NOFILE \(limit)); the reserve is let go"
      }
      if state.descriptors >= connectionLimit {
        return "connections hold \(state.descriptors) file descriptors, all the daemon gives them (RLIMIT_NOFILE \(limit) less \(headroom))"
      }
      if http, state.http >= httpLimit + Self.refusalsInFlight {
        return "\(state.http) HTTP connections are open or being refused"
      }
      return nil
    }
    if let pause { logger.warning("stopped accepting \(http ? "HTTP connections" : "connections") until one closes: \(pause)") }
    return may
  }

  /// Runs `check` under the lock: nil says yes (and the next no is logged again); a
  /// reason says no, and is returned to be logged only the first time since the last yes
  /// (the flag at `logged`).
  private func decide(loggedIn logged: WritableKeyPath<State, Bool>, _ check: (inout State) -> String?) -> (Bool, String?) {
    state.withLock { state in
      guard let reason = check(&state) else {
        state[keyPath: logged] = false
        return (true, nil)
      }
      defer { state[keyPath: logged] = true }
      return (false, state[keyPath: logged] ? nil : reason)
    }
  }

  /// A listener accepted a socket: it counts until it closes (``closed(http:)``).
  func accepted(http: Bool) {
    state.withLock { state in
      state.descriptors += 1
      if http { state.http += 1 }
    }
  }

  /// An accepted socket closed.
  func closed(http: Bool) {
    state.withLock { state in
      state.descriptors -= 1
      if http { state.http -= 1 }
    }
  }

  // MARK: HTTP connections and socket pairs

  /// Whether an accepted HTTP connection is served (within ``httpLimit`` and `limit`), or
  /// refused. The first refusal since one was last served is logged, with `peer`.
  func admitHTTP(limit: Int, peer: String, logger: Logger) -> Bool {
    let (admitted, refusal) = decide(loggedIn: \.refusalLogged) { state in
      guard state.httpServed < min(limit, httpLimit) else {
        return "\(state.httpServed) HTTP connections are open, as many as the daemon serves at once"
      }
      state.httpServed += 1
      return nil
    }
    if let refusal { logger.warning("refused a connection (\(peer)) and those after it until one is served: \(refusal)") }
    return admitted
  }

  /// A served HTTP connection closed.
  func releaseHTTP() {
    state.withLock { $0.httpServed -= 1 }
  }

  /// Takes the two descriptors of a socket pair (an inspector WebSocket's bridge), or
  /// says that there are not two to give.
  func takePair() -> Bool {
    state.withLock { state in
      guard state.releasedAt == nil, state.descriptors + 2 <= connectionLimit else { return false }
      state.descriptors += 2
      return true
    }
  }

  /// Gives back a socket pair's two descriptors.
  func givePair() {
    state.withLock { $0.descriptors -= 2 }
  }

  /// The descriptors counted now: all, and HTTP connections (accepted, served).
  var held: (all: Int, http: Int, httpServed: Int) { state.withLock { ($0.descriptors, $0.http, $0.httpServed) } }

  // MARK: The reserve

  /// An accept failed with `error`: when it is `EMFILE` or `ENFILE`, the reserve is let go
  /// (logged once each time), so that the runtime has descriptors to work with.
  func acceptFailed(_ error: any Error, logger: Logger) {
    guard let code = (error as? IOError)?.errnoCode, code == EMFILE || code == ENFILE else { return }
    let released: Int? = state.withLock { state in
      guard state.releasedAt == nil else { return nil }
      let count = state.reserve.count
      for descriptor in state.reserve { close(descriptor) }
      state.reserve = []
      state.releasedAt = .now
      return count
    }
    if let released {
      logger.error(
        "out of file descriptors (\(code == EMFILE ? "EMFILE: the process's RLIMIT_NOFILE \(limit) is reached" : "ENFILE: the system's limit is reached")): \(released) kept in reserve are let go, and no connection is accepted until they can be taken back; raise LimitNOFILE or lower --max-connections"
      )
    }
  }

  /// Takes the reserve back, at most once a second after it was let go; true when it is
  /// held again.
  private static func retake(_ state: inout State) -> Bool {
    guard let releasedAt = state.releasedAt, ContinuousClock.now - releasedAt >= .seconds(1) else { return state.releasedAt == nil }
    let reserve = openReserve(reserveSize)
    guard reserve.count == reserveSize else {
      for descriptor in reserve { close(descriptor) }
      state.releasedAt = .now
      return false
    }
    state.reserve = reserve
    state.releasedAt = nil
    return true
  }

  private static func openReserve(_ count: Int) -> [Int32] {
    (0..<count).compactMap { _ in
      let descriptor = open("/dev/null", O_RDONLY | O_CLOEXEC)
      return descriptor >= 0 ? descriptor : nil
    }
  }

  /// The soft `RLIMIT_NOFILE`, raised first to the hard limit (at most 1,048,576), as
  /// Go's runtime does: a default soft limit of 1,024 is less than `--max-connections`'s
  /// default needs, and the hard limit is what the administrator allowed.
  static func raisedDescriptorLimit() -> Int {
    var limits = rlimit()
    guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limits) == 0 else { return 1_024 }
    let wanted = min(limits.rlim_max, 1 << 20)
    if limits.rlim_cur < wanted {
      var raised = limits
      raised.rlim_cur = wanted
      if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { limits = raised }
    }
    return Int(min(limits.rlim_cur, 1 << 20))
  }
}

/// The first handler of a listening channel (the socket's, or the HTTP listener's with
/// `http`): it counts every accepted socket in ``DescriptorBudget`` until it closes, stops
/// accepting while the budget is spent (asking again every 50 ms; the connections wait in
/// the kernel's backlog meanwhile), and lets the reserve go when an accept fails for want
/// of descriptors. That error goes on to NIO's `AcceptBackoffHandler`, which waits a second
/// before the next accept.
///
/// ```swift
/// ServerBootstrap(group: group).serverChannelInitializer { channel in
///   channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(AcceptGate(http: false, logger: logger)) }
/// }
/// ```
final class AcceptGate: ChannelDuplexHandler, RemovableChannelHandler {
  typealias InboundIn = any Channel
  typealias InboundOut = any Channel
  typealias OutboundIn = any Channel

  let http: Bool
  let logger: Logger
  private var retry: Scheduled<Void>?

  init(http: Bool, logger: Logger) {
    self.http = http
    self.logger = logger
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    let child = unwrapInboundIn(data)
    let (budget, http) = (DescriptorBudget.shared, self.http)
    budget.accepted(http: http)
    child.closeFuture.whenComplete { _ in budget.closed(http: http) }
    context.fireChannelRead(data)
  }

  func read(context: ChannelHandlerContext) {
    if DescriptorBudget.shared.mayAccept(http: http, logger: logger) {
      context.read()
      return
    }
    guard retry == nil else { return }
    retry = context.eventLoop.assumeIsolated().scheduleTask(in: .milliseconds(50)) {
      self.retry = nil
      self.read(context: context)
    }
  }

  func errorCaught(context: ChannelHandlerContext, error: any Error) {
    DescriptorBudget.shared.acceptFailed(error, logger: logger)
    context.fireErrorCaught(error)
  }

  func channelInactive(context: ChannelHandlerContext) {
    retry?.cancel()
    retry = nil
    context.fireChannelInactive()
  }

  func handlerRemoved(context: ChannelHandlerContext) {
    retry?.cancel()
    retry = nil
  }
}
