import ArborClient
import ArborLocking
import ArborStorage
import Foundation
import Logging
import NIOCore
import NIOPosix
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// An upgrade in place, as nginx does one: on `SIGUSR2` the daemon starts its binary again
/// (the file at the path it was started from, which a new build may have replaced) with the
/// same arguments, and once that process says it is ready, stops as at `SIGTERM` and hands
/// it the listening socket and every connection with its watches (``ConnectionHandOver``,
/// over a socket pair: ``UpgradeHandOff``). Before that, the new process is handed this
/// one's state as it is and restores it while this one serves (a new build may have
/// changed the model: its `migrate` runs as at a start), keeps that tree when it is of its
/// own schema and follows this one's journal (``PreparedTree``). After the stop it waits
/// for this one to exit, replays the last revisions, and serves the same connections.
/// Should the new process not start (a bad binary, an option it refuses) or not restore the
/// state (another root model, a migration that refuses it), this one says why and goes on
/// serving. Under systemd, this process tells the service manager that the new one is the
/// service's main process (`MAINPID=`) once it is ready.
///
/// ```sh
/// cp .build/release/counterfactd /usr/local/bin/counterfactd   # the new build
/// kill -USR2 "$(pidof counterfactd)"
/// ```
enum DaemonUpgrade {
  /// The variable that tells a process started by an upgrade which descriptor leads to the
  /// old process.
  static let variable = "ARBOR_UPGRADE_FD"
  /// How long the new process may take to say it is ready.
  static let readyLimit = Duration.seconds(60)

  /// What serves now, for an upgrade to hand over: set by the socket server once it
  /// listens, cleared when it stops.
  static let serving = LockedState<(parts: DaemonParts, listener: any Channel)?>(nil)
  private static let underWay = Atomic<Bool>(false)
  /// Whether an upgrade of this process is under way: its new process started, and this
  /// one has not yet stopped or gone back to serving.
  static var isUnderWay: Bool { underWay.load(ordering: .acquiring) }
  /// The path of this process's binary, read at start (``recordExecutable()``).
  private static let executable = LockedState<String?>(nil)

  /// Reads the path of the running binary while it is still the file this process runs
  /// (once replaced, `/proc/self/exe` names the old file as deleted).
  static func recordExecutable() {
    var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
    let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
    guard length > 0 else { return }
    let path = String(decoding: buffer[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    executable.withLock { $0 = path }
  }

  /// Why an upgrade did not happen.
  struct Refusal: Error, CustomStringConvertible {
    let description: String
  }

  /// How this process's stop is asked for, set by the daemon when it runs as a process of
  /// its own (it handles its signals); an in-process host has none, and is not upgraded.
  static let stopper = LockedState<(@Sendable () async -> Void)?>(nil)

  /// Asks for the stop that hands over to the process ``begin(logger:binary:)`` started.
  static func stopForHandOver() {
    guard let stop = stopper.withLock({ $0 }) else { return }
    Task { await stop() }
  }

  /// Starts the new process (`binary`, or this daemon's own) and waits until it is ready.
  /// On success ``UpgradeHandOff/current`` is set and the daemon should now stop; on
  /// failure nothing changed and this daemon serves on. Either way it is logged.
  static func begin(logger: Logger, binary: String? = nil) async -> Result<(pid: pid_t, binary: String), Refusal> {
    let outcome = await start(binary: binary, logger: logger)
    switch outcome {
    case .success(let started):
      logger.notice("upgrading: pid \(started.pid) (\(started.binary)) is ready; this daemon stops and hands over its socket and connections")
    case .failure(let refusal):
      logger.error("the upgrade did not happen: \(refusal); this daemon goes on serving")
    }
    return outcome
  }

  private static func start(binary requested: String?, logger: Logger) async -> Result<(pid: pid_t, binary: String), Refusal> {
    guard !underWay.exchange(true, ordering: .acquiringAndReleasing) else { return .failure(Refusal(description: "an upgrade is already under way")) }
    var handedOver = false
    defer { if !handedOver { underWay.store(false, ordering: .releasing) } }
    guard stopper.withLock({ $0 }) != nil else {
      return .failure(Refusal(description: "this daemon runs inside another program's process, which it cannot start again"))
    }
    guard let (parts, listener) = serving.withLock({ $0 }) else {
      return .failure(Refusal(description: "the daemon does not serve yet, or any more"))
    }
    if let refusal = refusal(parts) { return .failure(Refusal(description: refusal)) }
    guard let binary = requested ?? executable.withLock({ $0 }) else {
      return .failure(Refusal(description: "the path of this daemon's binary is not known (/proc/self/exe could not be read at start)"))
    }
    guard access(binary, X_OK) == 0 else {
      return .failure(Refusal(description: "\(binary) is not a file this daemon may run (\(String(cString: strerror(errno))))"))
    }
    // The listening socket goes over as it is: connections that arrive while this process
    // stops wait in its queue for the next one.
    guard let cookie = try? await SocketCookie.of(listener).get(), let listening = SocketCookie.descriptors()[cookie] else {
      return .failure(Refusal(description: "the listening socket's descriptor cannot be found"))
    }
    // The state as it is now, for the new process to check that it can restore it (a new
    // build may have changed the model) while this one still serves.
    let state: Int32
    do {
      let record = try await parts.journal.recordForUpgrade()
      let bytes = try await NIOThreadPool.singleton.runIfActive { try record.encodedBytes() }
      state = try MemoryFile.holding(bytes, name: "arbor-upgrade-state")
    } catch {
      return .failure(Refusal(description: "the state could not be taken for the new process to check: \(error)"))
    }
    defer { close(state) }
    let ends: (Int32, Int32)
    do {
      ends = try DescriptorPassing.pair()
    } catch {
      return .failure(Refusal(description: error.description))
    }
    let (own, theirs) = ends
    let pid: pid_t
    do {
      pid = try spawn(binary, passing: theirs)
    } catch {
      close(own)
      close(theirs)
      return .failure(Refusal(description: "cannot start \(binary): \(error)"))
    }
    close(theirs)
    logger.notice("upgrading: started \(binary) (pid \(pid)) to take over; waiting until it is ready")
    if let failure = await StoreCall.run({ () -> String? in
      do {
        try DescriptorPassing.send(own, payload: UpgradeMessage(state: true).bytes, descriptors: [state])
      } catch {
        // A process that ended at once has closed its end.
        let status = exitStatus(pid)
        if status != stillRunning { return "ended before it was ready (\(status))" }
        kill(pid, SIGKILL)
        return "could not be sent this daemon's state: \(error) (killed; \(exitStatus(pid)))"
      }
      return awaitReady(own, pid: pid)
    }) {
      close(own)
      return .failure(Refusal(description: "the new process (pid \(pid)) \(failure)"))
    }
    let handOff = UpgradeHandOff(pid: pid, socket: own)
    guard handOff.store(listening, name: UpgradeIntake.listenerName) else {
      close(own)
      kill(pid, SIGKILL)
      return .failure(Refusal(description: "the listening socket could not be duplicated"))
    }
    // The HTTP listener's socket too: the new process serves it if its --http is the same.
    #if HTTP
      if let http = KeptHTTPSocket.duplicate() {
        defer { close(http) }
        _ = handOff.store(http, name: KeptHTTPSocket.name)
      }
    #endif
    handOff.begin()
    // Under systemd the new process becomes the service's main process now, told by this
    // one (the main process's word is taken whatever NotifyAccess= says): this one's stop
    // is then not the service's, and the new one's READY=1 and watchdog pings count.
    if parts.notifier.isListening {
      parts.notifier.send("MAINPID=\(pid)\nSTATUS=upgrading: pid \(pid) takes over")
    }
    handedOver = true
    return .success((pid, binary))
  }

  /// Why this daemon cannot hand over, or nil.
  private static func refusal(_ parts: DaemonParts) -> String? {
    if parts.store.leadership != nil {
      return "its store is shared by several daemons: stop it, and a standby takes over"
    }
    if parts.journal.standby != nil { return "a standby has nothing of its own to hand over" }
    return nil
  }

  /// Starts `binary` with this process's arguments and environment, and `socket` as its
  /// descriptor 3 (named by ``variable``); nothing else of this process's goes with it.
  private static func spawn(_ binary: String, passing socket: Int32) throws -> pid_t {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    // A descriptor that already is 3 would keep its close-on-exec through a dup onto itself.
    let source = socket == 3 ? fcntl(socket, F_DUPFD_CLOEXEC, 4) : socket
    defer { if source != socket { close(source) } }
    posix_spawn_file_actions_adddup2(&actions, source, 3)
    try ChildDescriptors.closeAllFrom(4, in: &actions)
    let arguments = [binary] + CommandLine.arguments.dropFirst()
    var environment = ProcessInfo.processInfo.environment
    // `WATCHDOG_PID` names this process: without it, the new one pings the watchdog itself.
    for name in ["LISTEN_FDS", "LISTEN_PID", "LISTEN_FDNAMES", "WATCHDOG_PID", variable] { environment.removeValue(forKey: name) }
    environment[variable] = "3"
    let argv = arguments.map { strdup($0) } + [nil]
    let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer {
      for pointer in argv { free(pointer) }
      for pointer in envp { free(pointer) }
    }
    // The signals this daemon handles itself are ignored here (``SignalWatch``), which an
    // exec would keep: the new process starts with their default actions, none blocked.
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var defaults = sigset_t()
    sigemptyset(&defaults)
    for signal in [SIGTERM, SIGINT, SIGHUP, SIGUSR2] { sigaddset(&defaults, signal) }
    posix_spawnattr_setsigdefault(&attributes, &defaults)
    var unblocked = sigset_t()
    sigemptyset(&unblocked)
    posix_spawnattr_setsigmask(&attributes, &unblocked)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
    var pid: pid_t = 0
    let status = posix_spawn(&pid, binary, &actions, &attributes, argv, envp)
    guard status == 0 else { throw DescriptorPassing.Failure(description: String(cString: strerror(status))) }
    return pid
  }

  /// Waits on `socket` for the new process's `ready`; nil when it came, otherwise what
  /// happened instead (it exited, said something else, or said nothing in time: then it is
  /// killed). Blocks its thread.
  private static func awaitReady(_ socket: Int32, pid: pid_t) -> String? {
    guard DescriptorPassing.readable(socket, within: readyLimit) else {
      kill(pid, SIGKILL)
      return "did not say it was ready within \(readyLimit) (killed; \(exitStatus(pid)))"
    }
    do {
      guard let message = try DescriptorPassing.receive(socket) else { return "ended before it was ready (\(exitStatus(pid)))" }
      for descriptor in message.descriptors { close(descriptor) }
      let said = try? UpgradeMessage(bytes: message.payload)
      if let refused = said?.refused {
        var status = exitStatus(pid)
        if status == stillRunning {
          kill(pid, SIGKILL)
          status = "killed; \(exitStatus(pid))"
        }
        return "\(refused) (\(status))"
      }
      guard said?.ready == true else {
        kill(pid, SIGKILL)
        return "said \(String(decoding: message.payload.prefix(200), as: UTF8.self)) instead of that it was ready (killed; \(exitStatus(pid)))"
      }
      return nil
    } catch {
      // A process that exits without reading the state it was sent resets its end.
      let status = exitStatus(pid)
      if status != stillRunning { return "ended before it was ready (\(status))" }
      kill(pid, SIGKILL)
      return "could not be heard: \(error) (killed; \(exitStatus(pid)))"
    }
  }

  /// How the process ended, waited for a second at most; it is reaped.
  private static func exitStatus(_ pid: pid_t) -> String {
    var status: Int32 = 0
    for _ in 0..<100 {
      let waited = waitpid(pid, &status, WNOHANG)
      if waited == pid {
        if status & 0x7F == 0 { return "exit status \((status >> 8) & 0xFF)" }
        return "killed by signal \(status & 0x7F)"
      }
      if waited < 0 && errno != EINTR { return "its status is not known" }
      usleep(10_000)
    }
    return stillRunning
  }

  private static let stillRunning = "still running"
}
