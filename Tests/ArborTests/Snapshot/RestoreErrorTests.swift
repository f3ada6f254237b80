import Arbor
import ArborJSON
import Foundation
import Testing

/// Every malformed record is refused with an error that says what and where.
@Suite struct RestoreErrorTests {
  /// A valid record of a Thermostat, as text, to break in different ways.
  func validRecord() throws -> String {
    let (model, anchor) = Thermostat().andAnchor()
    model.history = [1, 2]
    return String(decoding: try anchor.snapshot(), as: UTF8.self)
  }

  func restoreError(_ text: String) -> SnapshotError? {
    do {
      _ = try Thermostat.andAnchor(restoring: Data(text.utf8))
      return nil
    } catch let error as SnapshotError {
      return error
    } catch {
      Issue.record("not a SnapshotError: \(error)")
      return nil
    }
  }

  @Test func truncatedJSON() throws {
    let text = try validRecord()
    let error = try #require(restoreError(String(text.prefix(text.count / 2))))
    guard case .malformed = error else { Issue.record("got \(error)"); return }
    #expect(error.description.hasPrefix("the snapshot is not a valid JSON record: at byte "), "where reading stopped: \(error)")
  }

  @Test func notARecordAtAll() throws {
    let error = try #require(restoreError("[1, 2]"))
    #expect(error.description.hasPrefix("the snapshot is invalid at its top level: expected"))
  }

  @Test func unknownFormatVersion() throws {
    let text = try validRecord().replacingOccurrences(of: #""format":1"#, with: #""format":7"#)
    #expect(restoreError(text) == .unsupportedFormat(found: 7, supported: 1))
    #expect(restoreError(text)?.description == "the snapshot has format version 7; this build reads format 1")
  }

  @Test func anotherRootType() throws {
    let text = try validRecord().replacingOccurrences(of: #""root":"Thermostat""#, with: #""root":"AppModel""#)
    #expect(restoreError(text)?.description == "the snapshot holds a tree of AppModel, not of Thermostat")
  }

  @Test func anIncompatibleSchema() throws {
    let text = try validRecord().replacingOccurrences(of: Thermostat.schemaHash, with: "sha256:0000")
    #expect(
      restoreError(text)?.description
        == "the snapshot was written by an incompatible Thermostat (its schema is sha256:0000, this build's is \(Thermostat.schemaHash)); implement Thermostat.migrate(_:) to upgrade such records"
    )
  }

  @Test func aValueOfTheWrongType() throws {
    let text = try validRecord().replacingOccurrences(of: #""history":[1,2]"#, with: #""history":[1,"two"]"#)
    let error = try #require(restoreError(text))
    guard case .invalidValue(let path, let reason) = error else { Issue.record("got \(error)"); return }
    #expect(path == "/state/history/1")
    #expect(reason.hasPrefix("expected Int"))
  }

  @Test func aMissingID() throws {
    let text = try validRecord().replacing(#/"id":"[0-9a-f]{16}",/#, with: "")
    #expect(restoreError(text) == .invalidValue(path: "/state", reason: "missing 'id'"))
  }

  @Test func aMalformedID() throws {
    let text = try validRecord().replacing(#/"id":"[0-9a-f]{16}"/#, with: #""id":"xyz""#)
    #expect(restoreError(text) == .invalidValue(path: "/state/id", reason: "'xyz' is not a model id: expected 16 hexadecimal digits"))
  }

  @Test func aMissingPropertyWithoutDefault() throws {
    let (_, anchor) = Branch(name: "b").andAnchor()
    let text = String(decoding: try anchor.snapshot(), as: UTF8.self).replacingOccurrences(of: #","name":"b""#, with: "")
    do {
      _ = try Branch.andAnchor(restoring: Data(text.utf8))
      Issue.record("restored without its name")
    } catch let error as SnapshotError {
      #expect(error == .invalidValue(path: "/state", reason: "missing 'name'"))
    }
  }

  @Test func aMissingPropertyWithADefaultTakesTheDefault() throws {
    let text = try validRecord().replacingOccurrences(of: #""name":"hall","#, with: "")
    let (model, _) = try Thermostat.andAnchor(restoring: Data(text.utf8))
    #expect(model.name == "hall")
    #expect(model.history == [1, 2])
  }

  @Test func aBadCreationDate() throws {
    let text = try validRecord().replacing(#/"createdAt":"[^"]*"/#, with: #""createdAt":"yesterday""#)
    #expect(
      restoreError(text) == .invalidValue(path: "/createdAt", reason: "'yesterday' is not an ISO 8601 date such as 2026-11-22T13:00:00Z"))
  }

  @Test func nullForAValueThatCannotBeNull() throws {
    let text = try validRecord().replacingOccurrences(of: #""history":[1,2]"#, with: #""history":null"#)
    #expect(restoreError(text) == .invalidValue(path: "/state/history", reason: "expected Array<Any>, found null or nothing"))
  }

  /// A revision beyond Int64.max read as a UInt64, and writing the record back (or a
  /// snapshot of the tree restored from it) trapped converting it to JSON's Int64. Found by
  /// the snapshot fuzz target (Docs/Testing.md, "Fuzzing"); refused when read now.
  @Test func aRevisionBeyondInt64IsRefusedNotTrapped() throws {
    let text = try validRecord().replacing(#/"revision":\d+/#, with: #""revision":18446744073709551615"#)
    #expect(text.contains("18446744073709551615"))
    let error = try #require(restoreError(text))
    guard case .invalidValue(let path, let reason) = error else { Issue.record("got \(error)"); return }
    #expect(path == "/revision")
    #expect(reason.contains("beyond 9223372036854775807"))
    #expect(throws: DecodingError.self) { try JSONDecoder().decode(SnapshotRecord.self, from: Data(text.utf8)) }
    // The largest revision a record holds still reads and writes back.
    let largest = try validRecord().replacing(#/"revision":\d+/#, with: #""revision":9223372036854775807"#)
    let record = try JSONDecoder().decode(SnapshotRecord.self, from: Data(largest.utf8))
    #expect(record.revision == UInt64(Int64.max))
    #expect(try JSONDecoder().decode(SnapshotRecord.self, from: JSONEncoder().encode(record)) == record)
  }

  /// A tree anchored by hand beyond Int64.max has no snapshot: an error, not a trap.
  @Test func aTreeBeyondInt64HasNoSnapshot() throws {
    let record = try JSONDecoder().decode(SnapshotRecord.self, from: Data(try validRecord().utf8))
    let (_, anchor) = try Thermostat.andAnchor(restoring: record, revision: UInt64(Int64.max) + 1)
    #expect(throws: SnapshotError.self) { try anchor.snapshot() }
    var beyond = record
    beyond.revision = UInt64.max
    #expect(throws: EncodingError.self) { try JSONEncoder().encode(beyond) }
  }
}
