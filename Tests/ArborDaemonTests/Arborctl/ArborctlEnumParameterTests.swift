import ArborJSON
import Foundation
import ProcessSlots
import Testing

/// An enum parameter through arborctl, against todosd (`setSortOrder(to: SortOrder)`, a
/// `String` enum that is `CaseIterable`): the schema lists its values, and a value that is
/// not one of them is refused with the list, never with "must be any".
@Suite(.startsProcesses) struct ArborctlEnumParameterTests {
  @Test func aValueThatIsNotACaseIsRefusedWithTheCases() async throws {
    try await withDaemon(binary: TodosCalls.todosd()) { daemon, _ in
      let wrong = try await ArborctlTests.arborctl(["call", "/", "setSortOrder", "to=fan"], socket: daemon.socket)
      #expect(wrong.status == .exited(1))
      #expect(wrong.error.contains(#"parameter 'to' of setSortOrder is invalid: "fan" is not one of "created", "title", "doneLast""#), "\(wrong.error)")
      #expect(wrong.error.contains(#"to must be one of "created", "title", "doneLast""#), "\(wrong.error)")
      #expect(wrong.error.contains(#"setSortOrder(to: "created" | "title" | "doneLast")"#), "\(wrong.error)")
      #expect(!wrong.error.contains("must be any"), "\(wrong.error)")

      let schema = try await ArborctlTests.arborctl(["schema", "setSortOrder"], socket: daemon.socket)
      let lists = ArborctlCommandsTests.lines(schema).filter { $0["modelType"] == "TodoListModel" }
      let to = try #require(lists.first?["params"]?["properties"]?["to"], "\(schema.output)")
      #expect(to == ["type": "string", "enum": ["created", "title", "doneLast"]])

      let right = try await ArborctlTests.arborctl(["call", "/", "setSortOrder", "to=title"], socket: daemon.socket)
      #expect(right.status == .exited(0), "\(right.error)")
    }
  }
}
