import ArborLocking
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Standard input and output as descriptors NIO can wait on (epoll): a pipe or a socket
/// is given as it is; anything else (a regular file, a terminal, `/dev/null`) is copied
/// through a pipe by a thread of its own, with blocking reads and writes that never hold a
/// thread of the cooperative pool.
///
/// ```swift
/// let streams = StandardStreams()
/// // … NIOPipeBootstrap takes streams.input and streams.output …
/// await streams.flushed()   // what went to standard output through a pipe is written
/// ```
final class StandardStreams: Sendable {
  /// The descriptor to read standard input from.
  let input: Int32
  /// The descriptor to write standard output to.
  let output: Int32
  /// Set when the copy to standard output has ended; nil when there is none.
  private let outputCopied: LockedState<(done: Bool, waiting: [CheckedContinuation<Void, Never>])>?

  init() {
    input = Self.pollable(STDIN_FILENO) ? STDIN_FILENO : Self.copied(from: STDIN_FILENO)
    if Self.pollable(STDOUT_FILENO) {
      output = STDOUT_FILENO
      outputCopied = nil
    } else {
      let copied = LockedState((done: false, waiting: [CheckedContinuation<Void, Never>]()))
      outputCopied = copied
      output = Self.copied(to: STDOUT_FILENO) {
        let waiting = copied.withLock { state -> [CheckedContinuation<Void, Never>] in
          state.done = true
          defer { state.waiting = [] }
          return state.waiting
        }
        for continuation in waiting { continuation.resume() }
      }
    }
  }

  /// Waits until what was written to ``output`` has reached standard output (once NIO has
  /// closed ``output``); at once when standard output is written directly.
  func flushed() async {
    guard let outputCopied else { return }
    await withCheckedContinuation { continuation in
      let done = outputCopied.withLock { state -> Bool in
        if !state.done { state.waiting.append(continuation) }
        return state.done
      }
      if done { continuation.resume() }
    }
  }

  /// Whether epoll can wait on `descriptor`: a pipe or a socket.
  static func pollable(_ descriptor: Int32) -> Bool {
    var info = stat()
    guard fstat(descriptor, &info) == 0 else { return false }
    let kind = info.st_mode & S_IFMT
    return kind == S_IFIFO || kind == S_IFSOCK
  }

  /// A pipe's read end, fed from `descriptor` by a thread until it ends.
  private static func copied(from descriptor: Int32) -> Int32 {
    var ends: [Int32] = [-1, -1]
    guard pipe(&ends) == 0 else { return descriptor }
    for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
    let writeEnd = ends[1]
    let thread = Thread {
      copy(from: descriptor, to: writeEnd)
      _ = Glibc.close(writeEnd)
    }
    thread.name = "arborctl-stdin"
    thread.start()
    return ends[0]
  }

  /// A pipe's write end, copied to `descriptor` by a thread until it closes; then `done`.
  private static func copied(to descriptor: Int32, done: @escaping @Sendable () -> Void) -> Int32 {
    var ends: [Int32] = [-1, -1]
    guard pipe(&ends) == 0 else {
      done()
      return descriptor
    }
    for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
    let readEnd = ends[0]
    let thread = Thread {
      copy(from: readEnd, to: descriptor)
      _ = Glibc.close(readEnd)
      done()
    }
    thread.name = "arborctl-stdout"
    thread.start()
    return ends[1]
  }

  /// Copies until `source` ends or either side fails.
  private static func copy(from source: Int32, to destination: Int32) {
    var buffer = [UInt8](repeating: 0, count: 65_536)
    while true {
      let count = read(source, &buffer, buffer.count)
      if count < 0 && errno == EINTR { continue }
      guard count > 0 else { return }
      var offset = 0
      while offset < count {
        let written = buffer.withUnsafeBytes { write(destination, $0.baseAddress! + offset, count - offset) }
        if written < 0 && errno == EINTR { continue }
        guard written > 0 else { return }
        offset += written
      }
    }
  }
}
