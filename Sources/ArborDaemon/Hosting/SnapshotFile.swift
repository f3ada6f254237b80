import Foundation
import NIOPosix

#if canImport(Glibc)
  import Glibc
#endif

/// The snapshot file in the state directory: written whole to a temporary file, flushed,
/// and renamed over the old one, so that a crash leaves either the old or the new file.
/// The writing runs on NIO's thread pool, never on the threads that serve clients.
struct SnapshotFile: Sendable {
  let path: String

  func read() throws -> Data? {
    guard FileManager.default.fileExists(atPath: path) else { return nil }
    return try Data(contentsOf: URL(fileURLWithPath: path))
  }

  func write(_ data: Data) async throws {
    let path = self.path
    try await NIOThreadPool.singleton.runIfActive {
      try Self.writeDurably(data, to: path)
    }
  }

  static func writeDurably(_ data: Data, to path: String) throws {
    let temporary = path + ".tmp"
    let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
    guard fd >= 0 else { throw SnapshotFileError(path: temporary, operation: "open", code: errno) }
    var failure: SnapshotFileError?
    data.withUnsafeBytes { buffer in
      var offset = 0
      while offset < buffer.count {
        let written = Glibc.write(fd, buffer.baseAddress! + offset, buffer.count - offset)
        if written < 0 {
          if errno == EINTR { continue }
          failure = SnapshotFileError(path: temporary, operation: "write", code: errno)
          return
        }
        offset += written
      }
    }
    if failure == nil, fsync(fd) != 0 { failure = SnapshotFileError(path: temporary, operation: "fsync", code: errno) }
    close(fd)
    if let failure { throw failure }
    guard rename(temporary, path) == 0 else { throw SnapshotFileError(path: path, operation: "rename", code: errno) }
    let directory = open((path as NSString).deletingLastPathComponent, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    if directory >= 0 {
      _ = fsync(directory)
      close(directory)
    }
  }
}

struct SnapshotFileError: Error, CustomStringConvertible {
  let path: String
  let operation: String
  let code: Int32
  var description: String { "\(operation) of \(path) failed: \(String(cString: strerror(code)))" }
}
