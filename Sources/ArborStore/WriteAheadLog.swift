import Foundation

/// Reads SQLite's write-ahead log (the `-wal` file) the way SQLite does when it opens the
/// database, before it does, to tell apart what SQLite would silently drop:
///
/// - a **torn tail**: the last transaction's pages were not all written (the process or the
///   machine stopped during the write). SQLite drops that transaction; it was never
///   acknowledged under `--fsync always`. The store opens, and says so.
/// - **damage**: a page that does not match its checksum with whole transactions after it.
///   SQLite would drop those transactions too, although they were complete: the store
///   refuses to open rather than lose them without a word.
///
/// The layout (header, frames, salts and cumulative checksums) is SQLite's documented
/// WAL format.
///
/// ```swift
/// if case .tornTail(let frames) = try WriteAheadLog.inspect(path + "-wal") { print("dropped \(frames) pages") }
/// ```
public enum WriteAheadLog {
  public enum Inspection: Sendable, Hashable {
    /// No log, an empty one, or one that ends with a complete transaction.
    case clean
    /// The log ends in an incomplete transaction of this many pages, which SQLite drops.
    case tornTail(frames: Int)
    /// Damage before the last transaction; the reason says where.
    case damaged(String)
  }

  static let headerSize = 32
  static let frameHeaderSize = 24

  public static func inspect(_ path: String) throws -> Inspection {
    guard FileManager.default.fileExists(atPath: path) else { return .clean }
    let data = try Data(contentsOf: URL(fileURLWithPath: path))
    return data.withUnsafeBytes { inspect(bytes: $0) }
  }

  static func inspect(bytes: UnsafeRawBufferPointer) -> Inspection {
    guard !bytes.isEmpty else { return .clean }
    guard bytes.count >= headerSize else { return .tornTail(frames: 0) }
    let magic = word(bytes, 0)
    guard magic == 0x377f_0682 || magic == 0x377f_0683 else {
      return .damaged("its header does not start with the log's magic number")
    }
    let bigEndian = magic & 1 == 1
    let pageSize = Int(word(bytes, 8))
    guard pageSize >= 512, pageSize <= 65536, pageSize & (pageSize - 1) == 0 else {
      return .damaged("its header names a page size of \(pageSize)")
    }
    let salt1 = word(bytes, 16)
    let salt2 = word(bytes, 20)
    var sum = checksum(bytes, from: 0, count: 24, bigEndian: bigEndian, seed: (0, 0))
    guard sum == (word(bytes, 24), word(bytes, 28)) else {
      let frames = (bytes.count - headerSize) / (frameHeaderSize + pageSize)
      return frames > 0 ? .damaged("its header does not match its checksum, so SQLite would ignore its \(frames) pages") : .tornTail(frames: 0)
    }
    let frameSize = frameHeaderSize + pageSize
    var offset = headerSize
    var sinceCommit = 0
    var firstBad: Int?
    while offset + frameSize <= bytes.count {
      guard word(bytes, offset + 8) == salt1, word(bytes, offset + 12) == salt2 else { break }
      var next = checksum(bytes, from: offset, count: 8, bigEndian: bigEndian, seed: sum)
      next = checksum(bytes, from: offset + frameHeaderSize, count: pageSize, bigEndian: bigEndian, seed: next)
      guard next == (word(bytes, offset + 16), word(bytes, offset + 20)) else {
        firstBad = offset
        break
      }
      sum = next
      sinceCommit = word(bytes, offset + 4) != 0 ? 0 : sinceCommit + 1
      offset += frameSize
    }
    guard let firstBad else {
      // A partial frame at the end, or frames left from before the log was restarted
      // (another salt), end the log: only uncommitted frames of this salt are lost.
      let partial = offset < bytes.count && offset + frameSize > bytes.count ? 1 : 0
      return sinceCommit + partial > 0 ? .tornTail(frames: sinceCommit + partial) : .clean
    }
    // A bad frame: a torn tail when at most one transaction (the one being written when
    // the writing stopped) follows it; damage when complete transactions come after it.
    var commitsAfter = 0
    var frames = sinceCommit + 1
    var later = firstBad + frameSize
    while later + frameSize <= bytes.count {
      guard word(bytes, later + 8) == salt1, word(bytes, later + 12) == salt2 else { break }
      if word(bytes, later + 4) != 0 { commitsAfter += 1 }
      frames += 1
      later += frameSize
    }
    if commitsAfter > 1 {
      let index = (firstBad - headerSize) / frameSize
      return .damaged("page \(index + 1) of the log does not match its checksum and \(commitsAfter) transactions follow it")
    }
    return .tornTail(frames: frames)
  }

  private static func word(_ bytes: UnsafeRawBufferPointer, _ offset: Int) -> UInt32 {
    UInt32(bigEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
  }

  /// SQLite's WAL checksum over `count` bytes (a multiple of 8), continuing from `seed`.
  private static func checksum(
    _ bytes: UnsafeRawBufferPointer, from start: Int, count: Int, bigEndian: Bool, seed: (UInt32, UInt32)
  ) -> (UInt32, UInt32) {
    var (s0, s1) = seed
    var offset = start
    let end = start + count
    while offset < end {
      let raw0 = bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self)
      let raw1 = bytes.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self)
      let x0 = bigEndian ? UInt32(bigEndian: raw0) : UInt32(littleEndian: raw0)
      let x1 = bigEndian ? UInt32(bigEndian: raw1) : UInt32(littleEndian: raw1)
      s0 = s0 &+ x0 &+ s1
      s1 = s1 &+ x1 &+ s0
      offset += 8
    }
    return (s0, s1)
  }
}
