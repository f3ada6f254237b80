#if canImport(Glibc)
  import Glibc
#endif

/// An anonymous file in memory (`memfd_create`), to hand bytes to the next process as a
/// descriptor. Glibc's Swift module does not declare `memfd_create`; it is looked up in the
/// C library.
///
/// ```swift
/// let descriptor = try MemoryFile.holding(bytes, name: "arbor-handover")
/// let back = try MemoryFile.contents(of: descriptor)
/// ```
enum MemoryFile {
  struct Failure: Error, CustomStringConvertible {
    let description: String
  }

  private typealias Create = @convention(c) (UnsafePointer<CChar>, UInt32) -> Int32

  /// A new memory file holding `bytes`, read from its start; close-on-exec.
  static func holding(_ bytes: [UInt8], name: String) throws(Failure) -> Int32 {
    guard let symbol = dlsym(nil /* RTLD_DEFAULT: the C library the process has */, "memfd_create") else {
      throw Failure(description: "this C library has no memfd_create")
    }
    let create = unsafeBitCast(symbol, to: Create.self)
    let descriptor = create(name, 1 /* MFD_CLOEXEC */)
    guard descriptor >= 0 else { throw Failure(description: "memfd_create failed: \(String(cString: strerror(errno)))") }
    var offset = 0
    while offset < bytes.count {
      let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress! + offset, $0.count - offset) }
      guard written > 0 else {
        let reason = String(cString: strerror(errno))
        close(descriptor)
        throw Failure(description: "writing the memory file failed: \(reason)")
      }
      offset += written
    }
    lseek(descriptor, 0, SEEK_SET)
    return descriptor
  }

  /// Everything a file holds, read from its start.
  static func contents(of descriptor: Int32) throws(Failure) -> [UInt8] {
    lseek(descriptor, 0, SEEK_SET)
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 64 << 10)
    while true {
      let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
      if count == 0 { return bytes }
      guard count > 0 else { throw Failure(description: "reading the hand-over failed: \(String(cString: strerror(errno)))") }
      bytes += chunk[..<count]
    }
  }
}
