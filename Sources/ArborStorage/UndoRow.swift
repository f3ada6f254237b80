import ArborJSON
import ArborRecords

/// One change of the kept undo history, its step encoded once, outside the transaction, as
/// every backend stores it in `undo_steps`.
package struct UndoRow: Sendable {
  package enum Operation: Sendable {
    case recorded(limit: Int)
    case undone
    case redone
    case cleared
  }
  package var operation: Operation
  package var step: String?
  package var checksum: Int64

  package init(_ change: UndoHistoryChange) {
    let step: UndoStep?
    switch change {
    case .recorded(let recorded, let limit):
      operation = .recorded(limit: limit)
      step = recorded
    case .undone(let redo):
      operation = .undone
      step = redo
    case .redone(let undo):
      operation = .redone
      step = undo
    case .cleared:
      operation = .cleared
      step = nil
    }
    let bytes = step.map(Self.bytes) ?? []
    self.step = step == nil ? nil : String(decoding: bytes, as: UTF8.self)
    self.checksum = Checksum.of(bytes)
  }

  package static func bytes(_ step: UndoStep) -> [UInt8] {
    var bytes: [UInt8] = []
    // An UndoStep is ids, names and JSON values: it always encodes.
    guard let value = try? JSONValueEncoder().encode(step) else { return Array("{\"parts\":[]}".utf8) }
    value.writeJSON(to: &bytes)
    return bytes
  }
}


/// The two stacks of `undo_steps`.
package enum UndoStack: Int64 {
  case undo = 0
  case redo = 1
}
