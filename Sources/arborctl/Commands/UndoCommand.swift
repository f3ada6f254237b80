import ArborRPC
import ArborJSON
import ArgumentParser

/// `arborctl undo` and `arborctl redo`: one step of the tree's undo system.
struct UndoCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "undo", abstract: "Undo the most recent step of the tree's undo system (models that call node.trackUndo).")

  @OptionGroup var connection: ConnectionOptions

  func run() async throws { try await UndoStep.run(.historyUndo, connection: connection) }
}

/// `arborctl redo`.
struct RedoCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(commandName: "redo", abstract: "Redo the most recently undone step.")

  @OptionGroup var connection: ConnectionOptions

  func run() async throws { try await UndoStep.run(.historyRedo, connection: connection) }
}

/// What undo and redo share: the call, and `revision 7 (can undo: yes, can redo: no)`.
enum UndoStep {
  static func run(_ method: ArborMethod, connection: ConnectionOptions) async throws {
    do {
      let reply = try await connection.withConnection { try await $0.call(method) }
      if connection.printsJSON { return Output.json(reply) }
      func yes(_ key: String) -> String { reply[key]?.boolValue == true ? "yes" : "no" }
      print("\(Style.revision("revision \(Output.text(reply["revision"] ?? .null))")) \(Style.dim("(can undo: \(yes("canUndo")), can redo: \(yes("canRedo")))"))")
    } catch let failure as CommandFailure {
      throw Arborctl.fail(failure, json: connection.json)
    }
  }
}
