/// The checksum kept next to every snapshot and journalled patch (64-bit FNV-1a), so that
/// a flipped byte in a row's payload, which SQLite cannot see, is found when it is read.
///
/// ```swift
/// let sum = Checksum.of(Array("[]".utf8))
/// ```
public enum Checksum {
  /// The checksum of `bytes`, as SQLite stores it (a signed 64-bit integer).
  public static func of(_ bytes: UnsafeRawBufferPointer) -> Int64 {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in bytes {
      hash ^= UInt64(byte)
      hash &*= 0x0000_0100_0000_01b3
    }
    return Int64(bitPattern: hash)
  }

  public static func of(_ bytes: [UInt8]) -> Int64 { bytes.withUnsafeBytes { of($0) } }
}
