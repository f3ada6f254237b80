import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// An exclusive lock on a state directory: one process owns the state in it at a time.
///
/// The lock is an `flock` on `arbor.lock` in the directory, as PostgreSQL and etcd lock
/// their data directories. The kernel releases it when the owner's last descriptor of the
/// file closes, so a daemon killed with SIGKILL never leaves it stale. The file holds the
/// owner's pid, which a refused process names in its error.
///
/// Acquiring creates the directory and the lock file when they are missing, and nothing
/// else; a process that does not get the lock changes nothing in the directory.
///
/// ```swift
/// let lock = try StateDirectoryLock.acquire("/var/lib/arbor/app")
/// defer { lock.release() }
/// let store = try Store.open(at: "/var/lib/arbor/app/arbor.sqlite", root: "AppModel", schema: hash, fsync: .batch)
/// ```
public final class StateDirectoryLock: Sendable {
  /// Why the lock could not be taken.
  public struct Refusal: Error, Sendable, CustomStringConvertible {
    public enum Kind: Sendable, Hashable {
      /// Another process holds the lock.
      case held(pid: Int32?)
      /// The directory or its lock file cannot be created or opened.
      case unusable(reason: String)
    }

    public var directory: String
    public var kind: Kind

    public var description: String {
      switch kind {
      case .held(let pid?):
        return
          "the state directory \(directory) is in use by process \(pid) (it holds \(directory)/\(StateDirectoryLock.fileName)): stop that daemon first, or give this one another --state-dir"
      case .held(nil):
        return
          "the state directory \(directory) is in use by another process (it holds \(directory)/\(StateDirectoryLock.fileName)): stop that daemon first, or give this one another --state-dir"
      case .unusable(let reason):
        return "cannot lock the state directory \(directory): \(reason)"
      }
    }
  }

  /// The lock file's name inside the state directory.
  public static let fileName = "arbor.lock"

  /// The locked directory.
  public let directory: String
  private let descriptor: Int32
  private let released = Atomic<Bool>(false)

  private init(directory: String, descriptor: Int32) {
    self.directory = directory
    self.descriptor = descriptor
  }

  /// Takes the lock on `directory` (created when missing), or throws at once when another
  /// process holds it, naming that process.
  public static func acquire(_ directory: String) throws(Refusal) -> StateDirectoryLock {
    if let problem = makeDirectories(directory) {
      throw Refusal(directory: directory, kind: .unusable(reason: problem + ". Choose another --state-dir, or create it, owned by the daemon's user"))
    }
    let path = directory + "/" + fileName
    let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
    guard descriptor >= 0 else {
      throw Refusal(directory: directory, kind: .unusable(reason: "\(path) cannot be opened (\(String(cString: strerror(errno))))"))
    }
    guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
      let code = errno
      let holder = readPID(descriptor)
      close(descriptor)
      if code == EWOULDBLOCK {
        throw Refusal(directory: directory, kind: .held(pid: holder))
      }
      throw Refusal(directory: directory, kind: .unusable(reason: "flock on \(path) failed (\(String(cString: strerror(code))))"))
    }
    // Ours: the file says who holds it (a read-only file system keeps the old text; the
    // lock itself still holds).
    let text = Array("\(getpid())\n".utf8)
    if ftruncate(descriptor, 0) == 0 {
      _ = text.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
    }
    return StateDirectoryLock(directory: directory, descriptor: descriptor)
  }

  /// Releases the lock (closing the descriptor); a process that ends releases it too.
  public func release() {
    guard !released.exchange(true, ordering: .relaxed) else { return }
    close(descriptor)
  }

  /// Creates `path` and its missing parents (mode 0755); nil when it exists or was made,
  /// else what stopped it, naming the part of the path and the system's reason.
  static func makeDirectories(_ path: String) -> String? {
    var info = stat()
    if stat(path, &info) == 0 {
      return (info.st_mode & S_IFMT) == S_IFDIR ? nil : "\(path) exists and is not a directory"
    }
    let parent = (path as NSString).deletingLastPathComponent
    if !parent.isEmpty, parent != path, let problem = makeDirectories(parent) { return problem }
    if mkdir(path, 0o755) == 0 || errno == EEXIST { return nil }
    return "\(path) cannot be created: \(String(cString: strerror(errno)).lowercased())"
  }

  private static func readPID(_ descriptor: Int32) -> Int32? {
    var buffer = [UInt8](repeating: 0, count: 32)
    let count = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, 0) }
    guard count > 0 else { return nil }
    let text = String(decoding: buffer[..<count], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    return Int32(text)
  }
}
