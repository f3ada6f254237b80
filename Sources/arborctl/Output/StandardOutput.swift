import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Standard output, written without a buffer of Foundation's: when the reader has gone
/// (`arborctl history | head -1`), the command ends quietly with status 0, as `redis-cli`,
/// `kubectl` and `jq` do, instead of failing on a broken pipe.
enum StandardOutput {
  /// Makes a closed pipe a write error (EPIPE) rather than a signal that kills the process,
  /// so that `write` can end quietly. Called once at start.
  static func prepare() {
    signal(SIGPIPE, SIG_IGN)
  }

  /// For commands that may wait a long time between lines (`watch`, `events`, `history
  /// --follow`): when standard output is a pipe or socket, a thread of its own notices the
  /// reader going (`poll` reports an error on the write end) and ends the process quietly,
  /// without waiting for the next line to fail.
  static func endWhenReaderGoes() {
    var info = stat()
    guard fstat(STDOUT_FILENO, &info) == 0 else { return }
    let kind = info.st_mode & S_IFMT
    guard kind == S_IFIFO || kind == S_IFSOCK else { return }
    let thread = Thread {
      while true {
        var descriptor = pollfd(fd: STDOUT_FILENO, events: 0, revents: 0)
        let ready = poll(&descriptor, 1, 1_000)
        if ready > 0, descriptor.revents & Int16(POLLERR | POLLHUP) != 0 { exit(0) }
      }
    }
    thread.name = "arborctl-stdout"
    thread.start()
  }

  /// Writes all of `text`; ends the process with status 0 when the reader has gone.
  static func write(_ text: String) {
    var bytes = Array(text.utf8)
    var offset = 0
    bytes.withUnsafeMutableBytes { buffer in
      while offset < buffer.count {
        let written = Glibc.write(STDOUT_FILENO, buffer.baseAddress! + offset, buffer.count - offset)
        if written >= 0 {
          offset += written
          continue
        }
        switch errno {
        case EINTR, EAGAIN: continue
        case EPIPE: exit(0)
        default: exit(1)
        }
      }
    }
  }
}

/// `print` for standard output in arborctl: through ``StandardOutput``, so that a reader
/// that goes away ends the command quietly. (Printing to standard error names its stream.)
func print(_ items: Any..., separator: String = " ", terminator: String = "\n") {
  StandardOutput.write(items.map { "\($0)" }.joined(separator: separator) + terminator)
}
