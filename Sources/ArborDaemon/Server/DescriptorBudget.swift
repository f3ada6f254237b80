import ArborLocking
import Logging
import NIOCore

#if canImport(Glibc)
  import Glibc
#endif

/// The process's file descriptors shared out among its connections, so that running out of
/// them is met at accept time (a refusal, logged once) and never inside the runtime: when
/// libdispatch cannot open `/proc/self/task/…` it traps, and the daemon dies.
///
/// - Connections of every listener together hold at most ``connectionLimit`` descriptors
///   (`RLIMIT_NOFILE` less ``headroom``, which is left to the journal, the store, the
///   runtime and the logs); HTTP connections at most ``httpLimit`` of them, so that a flood
///   of HTTP connections leaves room for the socket's clients.
/// - A few descriptors are held in reserve from the start. When an accept fails anyway
///   (`EMFILE`, `ENFILE`: something else took the rest), the reserve is let go, so that the
///   runtime has some to work with, the failure is logged once, and every new connection is
///   refused until the reserve can be taken back (at most once a second); NIO's
///   `AcceptBackoffHandler` waits a second before the next accept.
///
/// One per process, as the limit is.
///
/// ```swift
/// guard DescriptorBudget.shared.take(logger: logger) else { return refuse(channel) }
/// channel.closeFuture.whenComplete { _ in DescriptorBudget.shared.give() }
/// ```
final class DescriptorBudget: Sendable {
  /// The process's budget, set from `RLIMIT_NOFILE` at first use.
  static let shared = DescriptorBudget(limit: raisedDescriptorLimit())

  /// How many descriptors the reserve holds.
  static let reserveSize = 8

  /// `RLIMIT_NOFILE`'s soft limit, raised to the hard one at start when it is lower.
  let limit: Int
  /// Descriptors no connection may take: an eighth of the limit, at least 48, at most 1,024.
  let headroom: Int
  /// The descriptors all connections may hold together.
  var connectionLimit: Int { max(1, limit - headroom) }
  /// The descriptors HTTP connections may hold: half of ``connectionLimit``.
  var httpLimit: Int { max(1, connectionLimit / 2) }

  private struct State {
    var held = 0
    var httpHeld = 0
    /// The reserve's descriptors; empty once let go.
    var reserve: [Int32] = []
    /// When the reserve was let go; nil while it is held.
    var releasedAt: ContinuousClock.Instant?
    /// A refusal was logged since the last connection admitted.
    var refusalLogged = false
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

  /// Takes a descriptor for a new connection (an HTTP one with `http`), or says that it
  /// must be refused: the budget is spent, or the reserve is let go. The first refusal
  /// since a connection was last admitted is logged, with `peer`.
  func take(http: Bool = false, httpLimit limit: Int? = nil, peer: String, logger: Logger) -> Bool {
    let refusal: String? = state.withLock { state in
      if state.releasedAt != nil, !Self.retake(&state) {
        return "the process ran out of file descriptors (RLIMIT_NOFILE \(self.limit)); new connections are refused until some close"
      }
      if state.held >= connectionLimit {
        return "connections hold \(state.held) file descriptors, all the daemon gives them (RLIMIT_NOFILE \(self.limit) less \(headroom))"
      }
      let httpLimit = min(limit ?? httpLimit, httpLimit)
      if http, state.httpHeld >= httpLimit {
        return "\(state.httpHeld) HTTP connections are open, as many as the daemon serves at once"
      }
      state.held += 1
      if http { state.httpHeld += 1 }
      state.refusalLogged = false
      return nil
    }
    guard let refusal else { return true }
    let log = state.withLock { state in
      defer { state.refusalLogged = true }
      return !state.refusalLogged
    }
    if log { logger.warning("refused a connection (\(peer)) and those after it until one is admitted: \(refusal)") }
    return false
  }

  /// Gives back what ``take(http:httpLimit:peer:logger:)`` took, when the connection closes.
  func give(http: Bool = false) {
    state.withLock { state in
      state.held -= 1
      if http { state.httpHeld -= 1 }
    }
  }

  /// Connections' descriptors now (all, HTTP).
  var held: (all: Int, http: Int) { state.withLock { ($0.held, $0.httpHeld) } }

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
        "out of file descriptors (\(code == EMFILE ? "EMFILE: the process's RLIMIT_NOFILE \(limit)" : "ENFILE: the system's") is reached): \(released) kept in reserve are let go, and new connections are refused until they can be taken back; raise LimitNOFILE or lower --max-connections"
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

/// The first handler of a listening channel: an accept that failed for want of descriptors
/// lets go of ``DescriptorBudget``'s reserve. The error goes on to NIO's
/// `AcceptBackoffHandler`, which waits a second before accepting again.
final class AcceptFailureHandler: ChannelInboundHandler, Sendable {
  typealias InboundIn = any Channel

  let logger: Logger

  init(logger: Logger) { self.logger = logger }

  func errorCaught(context: ChannelHandlerContext, error: any Error) {
    DescriptorBudget.shared.acceptFailed(error, logger: logger)
    context.fireErrorCaught(error)
  }
}
