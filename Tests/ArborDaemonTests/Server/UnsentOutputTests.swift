import NIOCore
import Testing

@testable import ArborDaemon

/// ``UnsentOutput``: the last bytes given to a channel, rebuilt from the buffers kept, in
/// order, wherever the channel's pending bytes begin; the written buffers let go of.
@Suite struct UnsentOutputTests {
  private func given(_ pieces: [String]) -> UnsentOutput {
    var unsent = UnsentOutput()
    for piece in pieces { unsent.gave(ByteBuffer(string: piece)) }
    return unsent
  }

  /// Every count of pending bytes, from none to all, starting inside a buffer or at its edge.
  @Test func theLastBytesAreRebuiltWhereverThePendingOnesBegin() {
    let pieces = ["{\"id\":1}\n", "", "ab", "c", "{\"id\":22}\n"]
    let all = Array(pieces.joined().utf8)
    let unsent = given(pieces)
    #expect(unsent.bytes == all.count)
    for pending in 0...all.count {
      #expect(unsent.last(pending) == Array(all.suffix(pending)), "\(pending) pending")
    }
    #expect(unsent.last(all.count + 1) == nil, "more pending than was given: not told")
  }

  /// Trimming keeps exactly the buffers that hold the pending bytes, and what they rebuild.
  @Test func trimmingLetsGoOfTheWrittenBuffersOnly() {
    let pieces = ["aaaa", "bbb", "cc", "d"]
    let all = Array(pieces.joined().utf8)
    for pending in 0...all.count {
      var unsent = given(pieces)
      unsent.keepLast(pending)
      #expect(unsent.last(pending) == Array(all.suffix(pending)), "\(pending) pending")
      // What is kept is the shortest run of whole buffers at the end that holds them.
      let kept = pieces.reversed().reduce(into: (bytes: 0, done: false)) { state, piece in
        guard !state.done else { return }
        if state.bytes >= pending { state.done = true } else { state.bytes += piece.utf8.count }
      }.bytes
      #expect(unsent.bytes == kept, "\(pending) pending: \(unsent.bytes) bytes kept")
    }
  }

  @Test func aTrimIsAskedForAfterManyBuffersOrManyBytes() {
    var unsent = UnsentOutput()
    for _ in 1..<UnsentOutput.trimCount { unsent.gave(ByteBuffer(string: "x")) }
    #expect(!unsent.needsTrim)
    unsent.gave(ByteBuffer(string: "x"))
    #expect(unsent.needsTrim)
    unsent.keepLast(0)
    #expect(!unsent.needsTrim && unsent.bytes == 0)
    unsent.gave(ByteBuffer(repeating: 1, count: UnsentOutput.trimBytes))
    #expect(unsent.needsTrim)
  }
}
