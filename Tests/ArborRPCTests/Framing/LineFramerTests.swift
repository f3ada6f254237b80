import ArborRPC
import Testing

@Suite struct LineFramerTests {
  @Test func linesSplitAcrossChunksComeOutWhole() throws {
    var framer = LineFramer(maxLineLength: 100)
    var lines: [String] = []
    for chunk in ["{\"a\"", ":1}\n{\"b\":2}\r", "\n\n", "tail"] {
      framer.append(Array(chunk.utf8))
      while let line = try framer.nextLine() { lines.append(String(decoding: line, as: UTF8.self)) }
    }
    #expect(lines == [#"{"a":1}"#, #"{"b":2}"#, ""])
    #expect(framer.pendingCount == 4)
  }

  @Test func aLineOverTheLimitIsAnErrorBeforeItEnds() throws {
    var framer = LineFramer(maxLineLength: 8)
    framer.append(Array("12345678\n".utf8))
    #expect(try framer.nextLine().map(Array.init) == Array("12345678".utf8))
    framer.append(Array("123456789".utf8))
    #expect(throws: LineFramer.LineTooLong(limit: 8)) { try framer.nextLine() }
  }

  /// Found by fuzzing (Fuzz/Sources/request): a line of exactly the limit ending in `\r\n`
  /// was refused when a read ended between its `\r` and its `\n` (the `\r` was counted),
  /// and read when it did not. Every cut of the stream must give the same lines.
  @Test func aLineAtTheLimitEndingInCRLFReadsHoweverTheStreamIsCut() throws {
    let stream = Array("{\"a\":1}\r\n123S45678\r\n12".utf8)
    for cut in 0...stream.count {
      var framer = LineFramer(maxLineLength: 9)
      var lines: [String] = []
      for chunk in [stream[..<cut], stream[cut...]] {
        framer.append(chunk)
        while let line = try framer.nextLine() { lines.append(String(decoding: line, as: UTF8.self)) }
      }
      #expect(lines == [#"{"a":1}"#, "123S45678"], "cut at \(cut)")
    }
    // One byte more than the limit is still too long, with or without its `\r`.
    var framer = LineFramer(maxLineLength: 9)
    framer.append(Array("1234567890\r".utf8))
    #expect(throws: LineFramer.LineTooLong(limit: 9)) { try framer.nextLine() }
  }

  @Test func manyLinesKeepTheBufferSmall() throws {
    var framer = LineFramer(maxLineLength: 64)
    var count = 0
    for _ in 0..<10_000 {
      framer.append(Array("{\"jsonrpc\":\"2.0\"}\n".utf8))
      while try framer.nextLine() != nil { count += 1 }
    }
    #expect(count == 10_000)
    #expect(framer.pendingCount == 0)
  }

  /// Bytes handed from memory (as the daemon's socket reads do) frame exactly as a
  /// sequence does, across chunk boundaries and with consumed bytes compacted away.
  @Test func bytesFromMemoryFrameAsASequenceDoes() throws {
    let stream = Array(#"{"a":1}\#n{"b":[1,2,3]}\#r\#n\#n{"c":"é"}\#n{"d""#.utf8)
    for chunkSize in [1, 2, 3, 7, stream.count] {
      var fromSequence = LineFramer(maxLineLength: 64)
      var fromMemory = LineFramer(maxLineLength: 64)
      var sequenceLines: [[UInt8]] = []
      var memoryLines: [[UInt8]] = []
      var offset = 0
      while offset < stream.count {
        let chunk = Array(stream[offset..<min(stream.count, offset + chunkSize)])
        offset += chunk.count
        fromSequence.append(chunk)
        chunk.withUnsafeBytes { fromMemory.append(bytes: $0) }
        while let line = try fromSequence.nextLine() { sequenceLines.append(Array(line)) }
        while let line = try fromMemory.nextLine() { memoryLines.append(Array(line)) }
      }
      #expect(memoryLines == sequenceLines, "chunks of \(chunkSize)")
      #expect(memoryLines.count == 4, "chunks of \(chunkSize)")
      #expect(fromMemory.pendingCount == 4, "the unfinished line waits")
    }
  }
}
