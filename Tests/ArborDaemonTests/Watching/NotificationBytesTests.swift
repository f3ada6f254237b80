import ArborJSON
import Testing

@testable import ArborDaemon

@Suite struct NotificationBytesTests {
  @Test func aStateChangedLineIsTheNotificationItsObjectWouldBe() throws {
    let patch: [JSONPatchOperation] = [.replace(try JSONPointer("/count"), 3)]
    for (revision, subscription) in [(UInt64(0), 0), (1, 9), (10, 10), (1_234_567_890, 99), (UInt64.max, Int.max), (7, -1)] {
      let line = NotificationBytes.stateChanged(patchJSON: NotificationBytes.patchJSON(patch), revision: revision, subscription: subscription)
      #expect(line.last == 0x0A)
      let value = try JSONValue(parsing: Array(line.dropLast()))
      let expected: JSONValue = [
        "jsonrpc": "2.0", "method": "state.changed",
        "params": [
          "patch": [["op": "replace", "path": "/count", "value": 3]],
          // UInt64.max does not fit an Int64: the parser reads it as a Double.
          "revision": revision <= UInt64(Int64.max) ? .int(Int64(revision)) : .double(Double(revision)),
          "subscription": .int(Int64(subscription)),
        ],
      ]
      #expect(value == expected, "revision \(revision), subscription \(subscription)")
      #expect(String(decoding: line, as: UTF8.self).contains(#""revision":\#(revision),"#))
    }
  }

  @Test func anExtraMemberComesBeforeThePatch() throws {
    let line = NotificationBytes.stateChanged(patchJSON: Array("[]".utf8), revision: 2, subscription: 3, extra: #""exists":false,"#)
    let value = try JSONValue(parsing: Array(line.dropLast()))
    #expect(value["params"]?["exists"] == false)
  }
}
