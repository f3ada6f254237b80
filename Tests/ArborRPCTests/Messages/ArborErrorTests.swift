import ArborRPC
import Foundation
import Testing

/// Arbor's errors are defined once, in `ArborRPC`: unique codes and names, each listed in
/// `Docs/Protocol.md` with its code, and matched by name.
@Suite struct ArborErrorTests {
  @Test func codesAndNamesAreUniqueAndDocumented() throws {
    let all = ArborError.all
    #expect(Set(all.map(\.code)).count == all.count, "two errors share a code")
    #expect(Set(all.map(\.name)).count == all.count, "two errors share a name")
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent()
    let protocolDoc = try String(contentsOf: root.appendingPathComponent("Docs/Protocol.md"), encoding: .utf8)
    for error in all where error != .invalidParameter {
      #expect(protocolDoc.contains("| \(error.code) | `\(error.name)` |"), "Docs/Protocol.md does not list \(error)")
    }
    #expect(protocolDoc.contains("| 1003 | `\(ArborError.invalidParameter.name)` |"))
  }

  @Test func aReplyIsMatchedByName() {
    let error = RPCError(.pathNotFound, message: "nothing in the state at '/x'", details: ["path": "/x"])
    #expect(error.is(.pathNotFound))
    #expect(!error.is(.targetNotFound))
    #expect(error.code == 1007)
    let read = RPCError(error.json)
    #expect(read?.is(.pathNotFound) == true, "the name survives the wire")
  }
}
