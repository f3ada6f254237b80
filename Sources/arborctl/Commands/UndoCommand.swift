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
      let reply = try await connection.withConnection { connection in
        try await method == .historyRedo ? connection.call(HistoryRedo.self) : connection.call(HistoryUndo.self)
      }
      if connection.printsJSON { return Output.json((try? JSONValueEncoder().encode(reply)) ?? .null) }
      func yes(_ flag: Bool) -> String { flag ? "yes" : "no" }
      print("\(Style.revision("revision \(reply.revision)")) \(Style.dim("(can undo: \(yes(reply.canUndo)), can redo: \(yes(reply.canRedo)))"))")
    } catch let failure as CommandFailure {
      throw Arborctl.fail(failure, json: connection.json)
    }
  }
}
