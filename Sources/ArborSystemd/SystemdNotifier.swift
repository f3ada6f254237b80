import CSystemd

#if canImport(Glibc)
  import Glibc
#endif

/// Tells systemd how the service is doing (`sd_notify`): ready, reloading, stopping, a
/// one-line status, watchdog pings. Without `$NOTIFY_SOCKET` (not started by systemd, or
/// not `Type=notify`), every call does nothing.
///
/// ```swift
/// let notifier = SystemdNotifier()
/// notifier.ready(status: "serving AppModel at revision 12")
/// notifier.status("revision 14, 3 clients, 12.5 intents/s")
/// notifier.stopping()
/// ```
public struct SystemdNotifier: Sendable {
  public init() {}

  /// Whether a service manager listens (`$NOTIFY_SOCKET` is set).
  public var isListening: Bool {
    guard let socket = getenv("NOTIFY_SOCKET") else { return false }
    return socket.pointee != 0
  }

  /// Sends `state` (newline-separated `KEY=VALUE` assignments) as it is. Returns whether
  /// a listener got it.
  @discardableResult
  public func send(_ state: String) -> Bool {
    sd_notify(0, state) > 0
  }

  /// `READY=1` (and `MAINPID`, and a status line when given): the service is up.
  @discardableResult
  public func ready(status: String? = nil) -> Bool {
    var lines = ["READY=1", "MAINPID=\(getpid())"]
    if let status { lines.append("STATUS=\(Self.oneLine(status))") }
    return send(lines.joined(separator: "\n"))
  }

  /// `STATUS=…`: one line that `systemctl status` shows.
  @discardableResult
  public func status(_ text: String) -> Bool {
    send("STATUS=\(Self.oneLine(text))")
  }

  /// `RELOADING=1` with `MONOTONIC_USEC` (what `Type=notify-reload` expects), then the
  /// service re-reads its configuration and calls ``ready(status:)``.
  @discardableResult
  public func reloading() -> Bool {
    send("RELOADING=1\nMONOTONIC_USEC=\(Self.monotonicMicroseconds())")
  }

  /// `STOPPING=1`: the service began to stop.
  @discardableResult
  public func stopping(status: String? = nil) -> Bool {
    var lines = ["STOPPING=1"]
    if let status { lines.append("STATUS=\(Self.oneLine(status))") }
    return send(lines.joined(separator: "\n"))
  }

  /// How many descriptors the service manager keeps for the service across its restarts
  /// (`$FDSTORE`, which systemd 254 and later set from `FileDescriptorStoreMax=`; a unit
  /// for an older systemd sets it with `Environment=`); 0 when it keeps none.
  public var descriptorStoreSize: Int {
    guard isListening, let value = getenv("FDSTORE") else { return 0 }
    return Int(String(cString: value)) ?? 0
  }

  /// `FDSTORE=1` with `FDNAME=name`: hands the manager a duplicate of `descriptor` to keep
  /// while the service restarts; the next process finds it among its `$LISTEN_FDS` under
  /// `name`. Returns whether a listener got it.
  ///
  /// ```swift
  /// if notifier.descriptorStoreSize > 0 { notifier.store(listening, name: "socket") }
  /// ```
  @discardableResult
  public func store(_ descriptor: Int32, name: String) -> Bool {
    var descriptors = [descriptor]
    return sd_pid_notify_with_fds(0, 0, "FDSTORE=1\nFDNAME=\(name)", &descriptors, 1) > 0
  }

  /// `FDSTOREREMOVE=1` with `FDNAME=name`: the service manager lets go of the descriptors
  /// it keeps under that name (the next process has taken them).
  ///
  /// ```swift
  /// notifier.removeStored(name: "handover")
  /// ```
  @discardableResult
  public func removeStored(name: String) -> Bool {
    send("FDSTOREREMOVE=1\nFDNAME=\(name)")
  }

  /// `WATCHDOG=1`: the service is alive.
  @discardableResult
  public func watchdog() -> Bool {
    send("WATCHDOG=1")
  }

  /// The watchdog interval systemd asks for (`$WATCHDOG_USEC`, when `$WATCHDOG_PID` is
  /// unset or this process), nil when there is no watchdog. Ping at half of it.
  public var watchdogInterval: Duration? {
    var microseconds: UInt64 = 0
    guard sd_watchdog_enabled(0, &microseconds) > 0, microseconds > 0 else { return nil }
    return .microseconds(Int64(microseconds))
  }

  static func oneLine(_ text: String) -> String {
    String(text.map { $0 == "\n" || $0 == "\r" ? " " : $0 })
  }

  static func monotonicMicroseconds() -> UInt64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1_000
  }
}
