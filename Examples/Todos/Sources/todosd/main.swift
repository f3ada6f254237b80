import ArborDaemon
import ArgumentParser
import Todos

/// The Todos tree hosted as a daemon: `todosd --socket /tmp/todos.sock`.
@main
struct Todosd: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "todosd",
    abstract: "Hosts a todo list (with undo) and serves it over JSON-RPC 2.0 on a Unix socket.")

  @OptionGroup var options: DaemonOptions

  func run() async throws {
    try await ArborDaemon(name: "todosd", options: options) { TodoListModel() }.run()
  }
}
