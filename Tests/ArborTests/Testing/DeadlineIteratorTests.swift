import ArborTesting
import Testing

@Suite struct DeadlineIteratorTests {
  @Test func givesTheElementsInOrderThenTheEnd() async throws {
    let (stream, continuation) = AsyncStream<Int>.makeStream()
    let values = DeadlineIterator(stream)
    continuation.yield(1)
    continuation.yield(2)
    continuation.finish()
    #expect(try await values.next("the first value") == 1)
    #expect(try await values.next("the second value") == 2)
    #expect(try await values.nextOrEnd("the end of the stream") == nil)
  }

  @Test func anEndedSequenceFailsANext() async {
    let (stream, continuation) = AsyncStream<Int>.makeStream()
    let values = DeadlineIterator(stream)
    continuation.finish()
    await withKnownIssue {
      await #expect(throws: SequenceEnded.self) { try await values.next("a value that never comes") }
    } matching: { issue in
      isIssue(issue, saying: "The sequence ended while waiting for a value that never comes")
    }
  }

  @Test func aTimedOutWaitKeepsTheIteratorAndLaterWaitsFailAtOnce() async {
    let (stream, continuation) = AsyncStream<Int>.makeStream()
    let values = DeadlineIterator(stream)
    await withKnownIssue {
      await #expect(throws: DeadlineExceeded.self) { try await values.next("a value nobody sends", seconds: 0.1) }
      await #expect(throws: IteratorUnavailable.self) { try await values.next("the value after it") }
    } matching: { issue in
      isIssue(issue, saying: "Timed out after 0.1 s waiting for a value nobody sends")
        || isIssue(issue, saying: "Cannot wait for the value after it: a wait for a value nobody sends timed out and still holds the iterator")
    }
    continuation.finish()
  }

  @Test func theSequencesErrorsPassThrough() async {
    struct Broken: Error, Equatable {}
    let (stream, continuation) = AsyncThrowingStream<Int, any Error>.makeStream()
    let values = DeadlineIterator(stream)
    continuation.finish(throwing: Broken())
    await #expect(throws: Broken()) { try await values.next("a value") }
  }
}
