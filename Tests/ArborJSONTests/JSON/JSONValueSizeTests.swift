import ArborJSON
import Testing

@Suite struct JSONValueSizeTests {
  @Test func countsEveryValueOnceAndStopsAtTheLimit() {
    // An object of two members: three values.
    let small: JSONValue = ["a": 1, "b": [true]]
    #expect(!small.exceeds(values: 4))
    #expect(small.exceeds(values: 3))
    #expect(!JSONValue.null.exceeds(values: 1))
    #expect(JSONValue.null.exceeds(values: 0))
  }

  @Test func aLongArrayIsLargeWithoutVisitingItsElements() {
    let rows = JSONValue.array(Array(repeating: ["id": 1, "name": "row"], count: 100_000))
    #expect(rows.exceeds(values: 4_096))
    #expect(!rows.exceeds(values: 300_001))
    #expect(rows.exceeds(values: 300_000))
  }

  @Test func aLongStringCountsByItsBytes() {
    let text = JSONValue.string(String(repeating: "x", count: 64 * 100))
    #expect(text.exceeds(values: 100))
    #expect(!text.exceeds(values: 101))
    #expect(!JSONValue.string("short").exceeds(values: 1))
  }
}
