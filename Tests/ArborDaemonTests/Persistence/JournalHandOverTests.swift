import Arbor
import ArborStore
import Foundation
import Logging
import Testing

@testable import ArborDaemon

/// An upgrade's old process hands its store to the new one before it exits
/// (``DaemonJournal/handOverStore()``): what it journalled is written, and no snapshot of
/// its own is saved after, while the new process already writes to the same file.
@Suite struct JournalHandOverTests {
  /// A daemon's parts over a ``PipelineModel`` whose value was set to 1 (revision 1,
  /// journalled), with the watch hub at that revision.
  static func partsAtRevisionOne() async throws -> (parts: DaemonParts, store: Store, model: PipelineModel) {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("arbor-journal-handover-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    let options = try DaemonOptions.parse([])
    let paths = DaemonPaths(socket: directory + "/d.sock", stateDirectory: directory)
    let store = try Store.open(at: paths.storeFile, root: PipelineModel._$typeName, schema: PipelineModel.schemaHash, fsync: .off)
    let (model, anchor) = PipelineModel().andAnchor()
    let host = ModelHost(anchor: anchor, undoHistory: UndoHistory(), undoDepth: 10, dependencies: { _ in })
    var logger = Logger(label: "JournalHandOverTests")
    logger.logLevel = .error
    let parts = DaemonParts(
      name: "journal", host: host, options: options, commandLine: options, logLevel: SharedLogLevel(.error), paths: paths, adopted: nil,
      store: store, snapshotRevisions: [], journalledThrough: 0, base: nil, restoredState: nil, logger: logger)
    // The start's rebase saves revision 0 first.
    try await eventually("the journal's first snapshot", seconds: 30) { try store.snapshotRevisions() == [0] }
    model.value = 1
    try await parts.journal.writer.durable(through: 1)
    parts.hub.reset(document: try host.state().value, revision: 1)
    return (parts, store, model)
  }

  @Test func aCompactionSavesTheHubsState() async throws {
    let (parts, store, model) = try await Self.partsAtRevisionOne()
    await parts.journal.compact()
    #expect(try store.snapshotRevisions() == [0, 1])
    #expect(model.value == 1)
  }

  @Test func afterTheHandOverNoSnapshotIsSaved() async throws {
    let (parts, store, _) = try await Self.partsAtRevisionOne()
    try await parts.journal.handOverStore()
    // A compaction that was due when the stop came: it writes nothing now.
    await parts.journal.compact()
    #expect(try store.snapshotRevisions() == [0], "a snapshot was saved to a store handed over")
    #expect(try store.journalRange()?.upperBound == 1, "the journal was not written through the last revision")
  }
}
