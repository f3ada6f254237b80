import Foundation
import ArborRPC
import Testing

@Suite struct SHA256Tests {
  /// The examples of FIPS 180-4's companion document, and the classic million-`a` message.
  static let vectors: [(String, String)] = [
    ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
    ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
    (
      "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
      "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
    ),
    (
      "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
      "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"
    ),
  ]

  @Test(arguments: vectors)
  func knownVectors(message: String, digest: String) {
    #expect(SHA256.hexDigest(message) == digest)
    #expect(SHA256.hexDigest(Array(message.utf8)) == digest)
  }

  @Test func oneMillionAs() async {
    let digest = "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"
    // Seconds of hashing in a debug build: on a thread of its own, not the test pool's.
    let (contiguous, chunked) = await onOwnThread {
      (
        SHA256.hexDigest([UInt8](repeating: 0x61, count: 1_000_000)),
        // A sequence without contiguous storage takes the chunked path.
        SHA256.hexDigest(repeatElement(UInt8(0x61), count: 1_000_000).lazy.map { $0 })
      )
    }
    #expect(contiguous == digest)
    #expect(chunked == digest)
  }

  func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
      Thread { continuation.resume(returning: body()) }.start()
    }
  }

  /// Lengths around the padding boundaries (55, 56 and 64 bytes), checked against Python's hashlib.
  static let boundaries: [(Int, String)] = [
    (55, "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318"),
    (56, "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a"),
    (63, "7d3e74a05d7db15bce4ad9ec0658ea98e3f06eeecf16b4c6fff2da457ddc2f34"),
    (64, "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb"),
    (65, "635361c48bb9eab14198e76ea8ab7f1a41685d6ad62aa9146d301d4f17eb0ae0"),
    (119, "31eba51c313a5c08226adf18d4a359cfdfd8d2e816b13f4af952f7ea6584dcfb"),
    (120, "2f3d335432c70b580af0e8e1b3674a7c020d683aa5f73aaaedfdc55af904c21c"),
    (128, "6836cf13bac400e9105071cd6af47084dfacad4e5e302c94bfed24e013afb73e"),
  ]

  @Test(arguments: boundaries)
  func paddingBoundaries(count: Int, digest: String) {
    #expect(SHA256.hexDigest(String(repeating: "a", count: count)) == digest)
  }

  @Test func stringsAreHashedAsUTF8() {
    #expect(SHA256.hexDigest("héllo wörld ✓") == "c2a59c71097b678dc5af2eb1f98ddc575b63948b0fa6740071a945673aaada4d")
  }

  @Test func hashIsTheBytesOfTheHexDigest() {
    let bytes = SHA256.hash(Array("abc".utf8))
    #expect(bytes.count == 32)
    #expect(bytes.prefix(4) == [0xba, 0x78, 0x16, 0xbf])
    #expect(bytes.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
      == SHA256.hexDigest("abc"))
  }
}
