import Arbor
import ArborJSON
import Foundation
import FuzzCheck

// Restoring a tree from a snapshot record (`Model.andAnchor(restoring:)`, what the
// daemon's `state.restore` and its start from the store do), for a root with a list, an
// optional child, a dictionary, a plain value type and a constant (Models.swift).
//
// The input is the record's bytes. It is restored as it is and, when it is a JSON object,
// once more with `format`, `root` and `schema` set to this root's (so that the fuzzer, which
// cannot guess a SHA-256, reaches the state).
//
// Properties:
// - nothing crashes, and every refusal is a `SnapshotError` (a clear error), never another;
// - a `SnapshotRecord` that decodes encodes and decodes back to itself;
// - restoring from the bytes and from the decoded record succeed or fail together;
// - a restored tree's snapshot restores again, with the same revision, and gives the same
//   snapshot: the state survives a round trip.

private let createdAt = Date(timeIntervalSince1970: 1_790_000_000)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSnapshot(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  let bytes = inputBytes(data, size)
  restore(Data(bytes))
  if case .object(var members)? = try? JSONValue(parsing: bytes) {
    members["format"] = .int(Int64(SnapshotRecord.currentFormat))
    members["root"] = .string("FuzzRoot")
    members["schema"] = .string(FuzzRoot.schemaHash)
    restore(JSONValue.object(members).jsonData())
  }
  return 0
}

private func restore(_ data: Data) {
  // Read as the runtime and the daemon read a record: `JSONParser`, then `JSONValueDecoder`.
  let record = (try? JSONValue(parsing: data)).flatMap { try? JSONValueDecoder().decode(SnapshotRecord.self, from: $0) }
  if let record {
    do {
      let encoded = try JSONEncoder().encode(record)
      let decoded = try JSONDecoder().decode(SnapshotRecord.self, from: encoded)
      check(decoded == record, "the record reads back otherwise: \(show(encoded))")
    } catch {
      fatalError("a record that was read does not encode and read back: \(error): \(show(data))")
    }
  }

  let snapshot: Data
  let revision: UInt64
  do {
    let (_, anchor) = try FuzzRoot.andAnchor(restoring: data)
    revision = anchor.revision
    snapshot = try anchor.snapshot(createdAt: createdAt)
  } catch let error as SnapshotError {
    _ = error.description
    if let record {
      // The record path refuses it too (a record of another root or schema, a bad state).
      let restored = try? FuzzRoot.andAnchor(restoring: record)
      check(restored == nil, "the record restores, its bytes do not (\(error)): \(show(data))")
    }
    return
  } catch {
    fatalError("restoring was refused with \(type(of: error)), not a SnapshotError: \(error): \(show(data))")
  }
  check(record != nil, "the bytes restore but do not read as a SnapshotRecord: \(show(data))")
  check(revision == record?.revision, "restored at revision \(revision), the record has \(String(describing: record?.revision))")
  do {
    let (_, fromRecord) = try FuzzRoot.andAnchor(restoring: record!)
    let recordSnapshot = try fromRecord.snapshot(createdAt: createdAt)
    check(recordSnapshot == snapshot, "the record restores otherwise than its bytes: \(show(data))")
    let (_, again) = try FuzzRoot.andAnchor(restoring: snapshot)
    check(again.revision == revision, "the snapshot restores at revision \(again.revision), not \(revision)")
    let second = try again.snapshot(createdAt: createdAt)
    check(second == snapshot, "the snapshot \(show(snapshot)) restores as \(show(second))")
  } catch {
    fatalError("a restored tree's snapshot does not restore: \(error): \(show(snapshot))")
  }
}
