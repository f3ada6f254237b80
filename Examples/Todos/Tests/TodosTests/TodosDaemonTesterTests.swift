import Arbor
import ArborClient
import ArborDaemonTesting
import ArborJSON
import ArborTesting
import Testing
import Todos

/// The guide's undo examples and the list's intents again through a daemon's socket:
/// intents called over it, `history.undo` and `history.redo` called as the daemon's own
/// methods, the state changes checked as the patches a watch of the root receives.
@Suite struct TodosDaemonTesterTests {
  @Test func editsAreUndoneAndRedoneThroughTheDaemon() async throws {
    let clock = SleepCountingClock()
    try await withDaemonTester(TodoListModel(), name: "todosd", dependencies: todoDependencies(clock)) { list, tester in
      try await tester.call("/", "setNewItemTitle", ["to": "Milk"])
      let added = try await tester.call("/", "addItem")
      let milk = try await tester.unwrap(list.items.first)
      #expect(added["result"] == .string(milk.id.description), "addItem replies with the new item's id")
      await tester.assert {
        list.items.map(\.title) == ["Milk"]
        list.newItemTitle == ""
      }
      try await tester.call("/items/0", "rename", ["to": "Oat milk"])
      try await tester.call(milk, "toggle")
      try await tester.call("/", "setNewItemTitle", ["to": "Eggs"])
      await tester.assert {
        milk.title == "Oat milk"
        milk.isDone
        list.newItemTitle == "Eggs"
      }

      let first = try await tester.client.call("history.undo")
      #expect(first["canUndo"] == true && first["canRedo"] == true, "\(first)")
      await tester.assert { !milk.isDone }
      try await tester.client.call("history.undo")
      await tester.assert { milk.title == "Milk" }
      let last = try await tester.client.call("history.undo")
      #expect(last["canUndo"] == false, "\(last)")
      await tester.assert {
        list.items.isEmpty
        list.newItemTitle == "Eggs"  // typing is not a step, and is not undone
      }
      let refused = await #expect(throws: ArborClientError.self) { try await tester.client.call("history.undo") }
      #expect(refused?.is(.nothingToUndo) == true)

      let redone = try await tester.client.call("history.redo")
      #expect(redone["canUndo"] == true && redone["canRedo"] == true, "\(redone)")
      await tester.assert { list.items.map(\.id) == [milk.id] }
      try await tester.client.call("history.redo")
      try await tester.client.call("history.redo")
      await tester.assert {
        milk.title == "Oat milk"
        milk.isDone
        list.remaining == 0
      }
      let status = try await tester.client.call("daemon.status")
      #expect(status["undo"] == ["canUndo": true, "canRedo": false], "\(status)")
    }
  }

  @Test func theListsIntentsOverTheSocket() async throws {
    let clock = SleepCountingClock()
    try await withDaemonTester(TodoListModel(), name: "todosd", dependencies: todoDependencies(clock)) { list, tester in
      for title in ["milk", "Eggs", "bread"] { try await tester.call("/", "addItem", ["title": .string(title)]) }
      try await tester.call("/items/0", "addTag", ["name": "shop"])
      try await tester.call("/items/1", "addTag", ["name": "shop"])
      let (milk, eggs, bread) = try await tester.unwrap(list.items.count == 3 ? (list.items[0], list.items[1], list.items[2]) : nil)
      await tester.assert {
        list.items.map(\.title) == ["milk", "Eggs", "bread"]
        milk.tags.map(\.name) == ["shop"]
        eggs.tags.map(\.id) == milk.tags.map(\.id)
      }
      // The shared tag is copied before milk renames it; eggs keeps "shop".
      try await tester.call(milk, "renameTag", ["named": "shop", "to": "errands"])
      await tester.assert {
        milk.tags.map(\.name) == ["errands"]
        eggs.tags.map(\.name) == ["shop"]
        milk.tags.map(\.id) != eggs.tags.map(\.id)
      }
      let empty = await #expect(throws: ArborClientError.self) { try await tester.call(bread, "rename", ["to": "  "]) }
      #expect(empty?.is(.intentFailed) == true)
      #expect("\(String(describing: empty))".contains("a todo needs a title"), "\(String(describing: empty))")

      try await tester.call(eggs, "toggle")
      try await tester.call("/", "setSortOrder", ["to": "title"])
      await tester.assert {
        eggs.isDone
        list.sortOrder == .title
        list.sortedItems.map(\.title) == ["bread", "Eggs", "milk"]
      }
      let reply = try await tester.call("/", "summary")
      let summary = try JSONValueDecoder().decode(TodoSummary.self, from: reply["result"] ?? .null)
      #expect(
        summary
          == TodoSummary(
            total: 3, remaining: 2, overdue: 0, sortOrder: .title, sortedTitles: ["bread", "Eggs", "milk"], isDirty: false,
            canUndo: true, canRedo: false))

      // The item's remove button is an event its list handles; settled waits for that.
      try await tester.call(bread, "removeTapped", settled: true)
      await tester.assert {
        list.items.map(\.title) == ["milk", "Eggs"]
        bread.didSend(.removeTapped)
      }
      let cleared = try await tester.call("/", "clearCompleted")
      #expect(cleared["result"] == 1)
      await tester.assert { list.items.map(\.title) == ["milk"] }
      try await tester.client.call("history.undo")
      await tester.assert { list.items.map(\.title) == ["milk", "Eggs"] }
    }
  }
}
