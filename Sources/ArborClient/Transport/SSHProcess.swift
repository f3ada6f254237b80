import ArborLocking
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// The ssh process that carries one connection: its standard input and output are the
/// connection's bytes (given to NIO as a pipe channel), its standard error is kept, the
/// last few KiB, for the message when it ends.
///
/// A thread of its own (never one of the cooperative pool) reads the standard error and
/// reaps the process; ``ended()`` suspends until it has.
///
/// ```swift
/// let process = try SSHProcess.spawn(["ssh", "build-1", "--", "arborctl bridge"], address: "ssh://build-1")
/// // … NIOPipeBootstrap takes process.fromChild and process.toChild …
/// let exit = await process.ended()   // SSHProcess.Exit(status: 255, signal: nil, lastLine: "ssh: connect to host …")
/// ```
final class SSHProcess: Sendable {
  /// How the process ended.
  struct Exit: Sendable, Equatable {
    /// Its exit status, when it exited.
    var status: Int32?
    /// The signal that ended it, when one did.
    var signal: Int32?
    /// The last line it wrote on standard error that is not blank.
    var lastLine: String?

    /// The last line, else what the status says.
    var reason: String {
      if let lastLine { return lastLine }
      if let signal { return "ssh was ended by signal \(signal)" }
      return "ssh exited with status \(status ?? -1)"
    }
  }

  private struct State {
    /// Set (under the lock) once the process has ended and before it is reaped: a pid that
    /// is not yet reaped cannot be another process's, so ``terminate()`` is safe.
    var exited = false
    var exit: Exit?
    var waiting: [CheckedContinuation<Exit, Never>] = []
  }

  let pid: pid_t
  /// The write end of the child's standard input.
  let toChild: Int32
  /// The read end of the child's standard output.
  let fromChild: Int32
  private let state = LockedState(State())

  private init(pid: pid_t, toChild: Int32, fromChild: Int32) {
    self.pid = pid
    self.toChild = toChild
    self.fromChild = fromChild
  }

  /// Starts `arguments` (the program found on `$PATH`) with three pipes; the failure to
  /// start names `address`.
  static func spawn(_ arguments: [String], address: String) throws(ArborClientError) -> SSHProcess {
    var made: [(read: Int32, write: Int32)] = []
    do {
      for _ in 0..<3 { made.append(try ChildDescriptors.pipe()) }
    } catch {
      for pipe in made { _ = Glibc.close(pipe.read); _ = Glibc.close(pipe.write) }
      throw .cannotConnect(path: address, reason: error.description)
    }
    let (input, output, error) = (made[0], made[1], made[2])
    // ssh gets its ends as 0, 1 and 2, and nothing else of this process (the pipes are
    // close-on-exec, and so is anything else from 3 up for this child).
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_adddup2(&actions, input.read, 0)
    posix_spawn_file_actions_adddup2(&actions, output.write, 1)
    posix_spawn_file_actions_adddup2(&actions, error.write, 2)
    do {
      try ChildDescriptors.closeAllFrom(3, in: &actions)
    } catch let failure {
      for pipe in made { _ = Glibc.close(pipe.read); _ = Glibc.close(pipe.write) }
      throw .cannotConnect(path: address, reason: failure.description)
    }
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    // arborctl ignores SIGPIPE; ssh gets the default back, and no signal blocked.
    var defaults = sigset_t()
    sigemptyset(&defaults)
    sigaddset(&defaults, SIGPIPE)
    posix_spawnattr_setsigdefault(&attributes, &defaults)
    var none = sigset_t()
    sigemptyset(&none)
    posix_spawnattr_setsigmask(&attributes, &none)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
    let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
    defer { argv.forEach { free($0) } }
    var pid: pid_t = 0
    let spawned = posix_spawnp(&pid, arguments[0], &actions, &attributes, argv, environ)
    for end in [input.read, output.write, error.write] { _ = Glibc.close(end) }
    guard spawned == 0 else {
      for end in [input.write, output.read, error.read] { _ = Glibc.close(end) }
      throw .cannotConnect(path: address, reason: "cannot run \(arguments[0]): \(String(cString: strerror(spawned)))")
    }
    let process = SSHProcess(pid: pid, toChild: input.write, fromChild: output.read)
    let errorEnd = error.read
    let thread = Thread { process.readErrorsAndReap(errorEnd) }
    thread.name = "arbor-ssh-\(pid)"
    thread.start()
    return process
  }

  /// Waits until the process has ended and been reaped.
  func ended() async -> Exit {
    await withCheckedContinuation { continuation in
      let exit = state.withLock { state -> Exit? in
        if let exit = state.exit { return exit }
        state.waiting.append(continuation)
        return nil
      }
      if let exit { continuation.resume(returning: exit) }
    }
  }

  /// Waits until the process has ended; past `limit`, sends it SIGTERM first (its
  /// standard output closed but it went on, which ssh does not do on its own).
  func endedOrTerminated(after limit: Duration) async -> Exit {
    if let exit { return exit }
    let timer = Task {
      try? await Task.sleep(for: limit)
      if !Task.isCancelled { terminate() }
    }
    defer { timer.cancel() }
    return await ended()
  }

  /// How it ended, or nil while it runs.
  var exit: Exit? { state.withLock { $0.exit } }

  /// Sends SIGTERM, unless the process has already ended.
  func terminate() {
    state.withLock { state in
      if !state.exited { kill(pid, SIGTERM) }
    }
  }

  /// The reaper thread's work: keeps the tail of standard error until it closes or the
  /// process ends, then reaps the process and tells those waiting.
  private func readErrorsAndReap(_ descriptor: Int32) {
    var tail: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    func keep(_ count: Int) {
      tail += buffer[0..<count]
      if tail.count > 8192 { tail.removeFirst(tail.count - 8192) }
    }
    var info = siginfo_t()
    reading: while true {
      var descriptors = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
      let ready = poll(&descriptors, 1, 200)
      if ready > 0 {
        let count = read(descriptor, &buffer, buffer.count)
        if count > 0 {
          keep(count)
          continue
        }
        if count == 0 || errno != EINTR { break reading }
      } else if ready < 0 && errno != EINTR {
        break reading
      }
      // Standard error may outlive the process (a child of ssh that keeps it): once the
      // process has ended, take what is there and stop.
      info = siginfo_t()
      if waitid(P_PID, id_t(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info._sifields._sigchld.si_pid == pid {
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        while true {
          let count = read(descriptor, &buffer, buffer.count)
          guard count > 0 else { break }
          keep(count)
        }
        break reading
      }
    }
    _ = Glibc.close(descriptor)
    while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) != 0 && errno == EINTR {}
    state.withLock { $0.exited = true }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    let signalled = status & 0x7f
    let exit = Exit(
      status: signalled == 0 ? (status >> 8) & 0xff : nil, signal: signalled == 0 ? nil : signalled, lastLine: Self.lastLine(of: tail))
    let waiting = state.withLock { state -> [CheckedContinuation<Exit, Never>] in
      state.exit = exit
      defer { state.waiting = [] }
      return state.waiting
    }
    for continuation in waiting { continuation.resume(returning: exit) }
  }

  /// The last line of `bytes` that is not blank, without its `\r`.
  static func lastLine(of bytes: [UInt8]) -> String? {
    String(decoding: bytes, as: UTF8.self).split(whereSeparator: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" })
      .map { $0.trimmingCharacters(in: .whitespaces) }.last { !$0.isEmpty }
  }
}
