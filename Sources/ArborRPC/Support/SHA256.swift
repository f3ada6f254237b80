/// SHA-256 as FIPS 180-4 defines it, for content hashes (snapshot and schema fingerprints).
///
/// ```swift
/// let digest = SHA256.hexDigest("abc")
/// // "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
/// ```
public enum SHA256 {
  /// The 32-byte digest of `bytes`.
  ///
  /// ```swift
  /// let digest: [UInt8] = SHA256.hash([0x61, 0x62, 0x63])   // 32 bytes, starting 0xba, 0x78
  /// ```
  public static func hash(_ bytes: some Sequence<UInt8>) -> [UInt8] {
    var hasher = _SHA256Hasher()
    let wasContiguous: Void? = bytes.withContiguousStorageIfAvailable { hasher.update($0) }
    if wasContiguous == nil {
      // Gather elements of other sequences in chunks rather than one byte at a time.
      var chunk: [UInt8] = []
      chunk.reserveCapacity(4096)
      for byte in bytes {
        chunk.append(byte)
        if chunk.count == 4096 {
          chunk.withUnsafeBufferPointer { hasher.update($0) }
          chunk.removeAll(keepingCapacity: true)
        }
      }
      chunk.withUnsafeBufferPointer { hasher.update($0) }
    }
    return hasher.finish()
  }

  /// The digest of `data` as 64 lowercase hexadecimal digits.
  ///
  /// ```swift
  /// let digest = SHA256.hexDigest([UInt8]())
  /// // "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
  /// ```
  public static func hexDigest(_ data: some Sequence<UInt8>) -> String {
    let digits: [UInt8] = Array("0123456789abcdef".utf8)
    var text: [UInt8] = []
    text.reserveCapacity(64)
    for byte in hash(data) {
      text.append(digits[Int(byte >> 4)])
      text.append(digits[Int(byte & 0x0f)])
    }
    return String(decoding: text, as: UTF8.self)
  }

  /// The digest of `string`'s UTF-8 bytes as 64 lowercase hexadecimal digits.
  ///
  /// ```swift
  /// let digest = SHA256.hexDigest("abc")
  /// ```
  public static func hexDigest(_ string: String) -> String {
    hexDigest(string.utf8)
  }
}

/// The running state of one SHA-256 computation (FIPS 180-4, section 6.2).
struct _SHA256Hasher {
  /// The first 32 bits of the fractional parts of the cube roots of the first 64 primes
  /// (section 4.2.2).
  private static let k: [UInt32] = [
    0x428a_2f98, 0x7137_4491, 0xb5c0_fbcf, 0xe9b5_dba5, 0x3956_c25b, 0x59f1_11f1, 0x923f_82a4, 0xab1c_5ed5,
    0xd807_aa98, 0x1283_5b01, 0x2431_85be, 0x550c_7dc3, 0x72be_5d74, 0x80de_b1fe, 0x9bdc_06a7, 0xc19b_f174,
    0xe49b_69c1, 0xefbe_4786, 0x0fc1_9dc6, 0x240c_a1cc, 0x2de9_2c6f, 0x4a74_84aa, 0x5cb0_a9dc, 0x76f9_88da,
    0x983e_5152, 0xa831_c66d, 0xb003_27c8, 0xbf59_7fc7, 0xc6e0_0bf3, 0xd5a7_9147, 0x06ca_6351, 0x1429_2967,
    0x27b7_0a85, 0x2e1b_2138, 0x4d2c_6dfc, 0x5338_0d13, 0x650a_7354, 0x766a_0abb, 0x81c2_c92e, 0x9272_2c85,
    0xa2bf_e8a1, 0xa81a_664b, 0xc24b_8b70, 0xc76c_51a3, 0xd192_e819, 0xd699_0624, 0xf40e_3585, 0x106a_a070,
    0x19a4_c116, 0x1e37_6c08, 0x2748_774c, 0x34b0_bcb5, 0x391c_0cb3, 0x4ed8_aa4a, 0x5b9c_ca4f, 0x682e_6ff3,
    0x748f_82ee, 0x78a5_636f, 0x84c8_7814, 0x8cc7_0208, 0x90be_fffa, 0xa450_6ceb, 0xbef9_a3f7, 0xc671_78f2,
  ]

  /// The hash value, starting from the first 32 bits of the fractional parts of the square
  /// roots of the first 8 primes (section 5.3.3).
  private var h: [UInt32] = [
    0x6a09_e667, 0xbb67_ae85, 0x3c6e_f372, 0xa54f_f53a, 0x510e_527f, 0x9b05_688c, 0x1f83_d9ab, 0x5be0_cd19,
  ]
  /// Bytes of a block not yet complete.
  private var pending: [UInt8] = []
  /// Bytes hashed so far.
  private var length: UInt64 = 0

  init() {
    pending.reserveCapacity(64)
  }

  mutating func update(_ bytes: UnsafeBufferPointer<UInt8>) {
    length &+= UInt64(bytes.count)
    var start = 0
    if !pending.isEmpty {
      let taken = min(64 - pending.count, bytes.count)
      pending.append(contentsOf: bytes[0..<taken])
      start = taken
      guard pending.count == 64 else { return }
      let block = pending
      block.withUnsafeBufferPointer { compress($0, blocks: 1) }
      pending.removeAll(keepingCapacity: true)
    }
    let whole = (bytes.count - start) / 64
    if whole > 0 {
      compress(UnsafeBufferPointer(rebasing: bytes[start..<(start + whole * 64)]), blocks: whole)
    }
    pending.append(contentsOf: bytes[(start + whole * 64)...])
  }

  /// Pads the message (section 5.1.1) and returns the digest, big-endian (section 6.2.2).
  mutating func finish() -> [UInt8] {
    let bitLength = length &* 8
    var tail: [UInt8] = [0x80]
    let zeros = (64 + 56 - (pending.count + 1) % 64) % 64
    tail.append(contentsOf: repeatElement(0, count: zeros))
    for shift in stride(from: 56, through: 0, by: -8) { tail.append(UInt8(truncatingIfNeeded: bitLength >> UInt64(shift))) }
    let savedLength = length
    tail.withUnsafeBufferPointer { update($0) }
    length = savedLength
    precondition(pending.isEmpty, "SHA-256 padding must end on a block boundary")
    var digest: [UInt8] = []
    digest.reserveCapacity(32)
    for word in h {
      digest.append(UInt8(truncatingIfNeeded: word >> 24))
      digest.append(UInt8(truncatingIfNeeded: word >> 16))
      digest.append(UInt8(truncatingIfNeeded: word >> 8))
      digest.append(UInt8(truncatingIfNeeded: word))
    }
    return digest
  }

  /// Runs the compression function over `blocks` consecutive 64-byte blocks.
  private mutating func compress(_ bytes: UnsafeBufferPointer<UInt8>, blocks: Int) {
    let k = Self.k
    var (h0, h1, h2, h3, h4, h5, h6, h7) = (h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7])
    withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { w in
      for block in 0..<blocks {
        let base = block * 64
        // The message schedule (section 6.2.2, step 1).
        for t in 0..<16 {
          let i = base + t * 4
          w[t] = UInt32(bytes[i]) << 24 | UInt32(bytes[i + 1]) << 16 | UInt32(bytes[i + 2]) << 8 | UInt32(bytes[i + 3])
        }
        for t in 16..<64 {
          let s0 = rotr(w[t - 15], 7) ^ rotr(w[t - 15], 18) ^ (w[t - 15] >> 3)
          let s1 = rotr(w[t - 2], 17) ^ rotr(w[t - 2], 19) ^ (w[t - 2] >> 10)
          w[t] = s1 &+ w[t - 7] &+ s0 &+ w[t - 16]
        }
        var (a, b, c, d, e, f, g, hh) = (h0, h1, h2, h3, h4, h5, h6, h7)
        for t in 0..<64 {
          let sigma1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)
          let choose = (e & f) ^ (~e & g)
          let t1 = hh &+ sigma1 &+ choose &+ k[t] &+ w[t]
          let sigma0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)
          let majority = (a & b) ^ (a & c) ^ (b & c)
          let t2 = sigma0 &+ majority
          hh = g
          g = f
          f = e
          e = d &+ t1
          d = c
          c = b
          b = a
          a = t1 &+ t2
        }
        h0 &+= a
        h1 &+= b
        h2 &+= c
        h3 &+= d
        h4 &+= e
        h5 &+= f
        h6 &+= g
        h7 &+= hh
      }
    }
    h = [h0, h1, h2, h3, h4, h5, h6, h7]
  }
}

/// Rotates right by `n` bits (ROTR, section 3.2).
@inline(__always)
private func rotr(_ x: UInt32, _ n: UInt32) -> UInt32 { (x >> n) | (x << (32 - n)) }
