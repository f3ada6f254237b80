// The values the runtime writes for a store and reads back (`SnapshotRecord`,
// `SnapshotError`, `UndoHistory`, `UndoStep`, `ModelID`, …) live in ArborRecords, below
// the runtime, so that the storage modules keep them without it; `import Arbor` brings
// them.
@_exported import ArborRecords
