import Testing

@testable import Arbor

/// The runtime's SHA-256 gives the digests of FIPS 180-4's examples, and of messages of
/// every length around the padding's edges (55, 56, 63, 64 bytes…), as Python's hashlib
/// (OpenSSL) gives them.
@Suite struct SHA256DigestTests {
  @Test func theStandardsExamples() {
    #expect(SHA256Digest.hash(Array("abc".utf8)).hex == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    #expect(
      SHA256Digest.hash(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)).hex
        == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
    #expect(SHA256Digest.hash(Array(repeating: UInt8(ascii: "a"), count: 1_000_000)).hex == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
  }

  /// Bytes `(i * 7 + 3) % 256` for each length, digested by hashlib.
  static let byLength: [(Int, String)] = [
    (0, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
    (1, "084fed08b978af4d7d196a7446a86b58009e636b611db16211b65a9aadff29c5"),
    (55, "e7313d333c272e639f790978283f9eb392e843d0f29b7016828bb1daa4aac70b"),
    (56, "4324d65f3c103567f5589c710bc08f8523f929a9272e3af36fc968e52abc6c27"),
    (57, "35df609437dcfea3279283ab79fd554e2bf78f8f7ae2de532d8ee300b09e8f73"),
    (63, "81c80242132f230c3bd41b3e63bbcff16107339549214a99614ff26664625055"),
    (64, "39e3d7b6b5d075d37d053ad89b24b41bef4f3c29760c84447cab3f3be1882241"),
    (65, "aacca6ff74fdbb296d165a45cecfa04e5127bc008770fbbdd48006f2d2fae95e"),
    (119, "9ce7368e4daf32341631b492e80359dc9f594b48453cd0dd5bf0b19279cc177e"),
    (120, "7836b787757e95e58b3ca5aec90b1b004e8deba1e50e9675af9cabf1a13a04b5"),
    (127, "a8d23e75d936f303d248888d9b165ee543f4cbafcad3c9dd2a79bd84faa11d07"),
    (128, "d2742f1f4ac6bb7ca2b239ee18402ba8b3f9f8e652d2a72973c2b9ba11c08cf6"),
    (1000, "1e9bc38cbf860b9ec31918b065f9b52476c549a782e0e7990bed8ce3868d2371"),
  ]

  @Test func messagesAroundThePaddingsEdges() {
    for (length, expected) in Self.byLength {
      let message = (0..<length).map { UInt8(($0 * 7 + 3) % 256) }
      #expect(SHA256Digest.hash(message).hex == expected, "\(length) bytes")
      #expect(SHA256Digest.hash(message[...]).bytes.count == 32)
    }
  }
}
