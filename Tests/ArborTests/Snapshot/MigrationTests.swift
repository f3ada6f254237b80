import Arbor
import ArborJSON
import Foundation
import Testing

/// Two versions of one root model: version 2 stores a temperature with its unit.
enum SettingsV1 {
  @Model struct Settings {
    var celsius = 20
  }
}

enum SettingsV2 {
  @Model struct Settings {
    var temperature = Temperature(value: 20, unit: "celsius")

    static func migrate(_ record: inout SnapshotRecord) throws -> Bool {
      guard case .object(var state) = record.state, let celsius = state.removeValue(forKey: "celsius") else { return false }
      guard case .int = celsius else { throw MigrationError.notANumber(celsius) }
      state["temperature"] = ["value": celsius, "unit": "celsius"]
      record.state = .object(state)
      return true
    }
  }

  struct Temperature: Codable, Sendable, Equatable {
    var value: Int
    var unit: String
  }

  enum MigrationError: Error { case notANumber(JSONValue) }
}

@Suite struct MigrationTests {
  @Test func theTwoVersionsHaveDifferentSchemas() {
    #expect(SettingsV1.Settings._$typeName == SettingsV2.Settings._$typeName)
    #expect(SettingsV1.Settings.schemaHash != SettingsV2.Settings.schemaHash)
  }

  @Test func migrateUpgradesAnOlderRecord() throws {
    let (old, oldAnchor) = SettingsV1.Settings().andAnchor()
    old.celsius = 23
    let data = try oldAnchor.snapshot()

    let (settings, anchor) = try SettingsV2.Settings.andAnchor(restoring: data)
    #expect(settings.temperature == SettingsV2.Temperature(value: 23, unit: "celsius"))
    #expect(settings.id == old.id)
    #expect(anchor.revision == 1)

    let record = try JSONDecoder().decode(SnapshotRecord.self, from: data)
    let (fromRecord, _) = try SettingsV2.Settings.andAnchor(restoring: record)
    #expect(fromRecord.temperature.value == 23)
  }

  @Test func aModelWithoutMigrateRefusesAnotherSchema() throws {
    let (_, anchor) = try SettingsV2.Settings.andAnchor(restoring: SettingsV1.Settings().andAnchor().1.snapshot())
    let data = try anchor.snapshot()
    do {
      _ = try SettingsV1.Settings.andAnchor(restoring: data)
      Issue.record("version 1 restored a version 2 record")
    } catch let error as SnapshotError {
      #expect(error == .incompatibleSchema(root: "Settings", expected: SettingsV1.Settings.schemaHash, found: SettingsV2.Settings.schemaHash))
    }
  }

  @Test func aFailingMigrationSaysSo() throws {
    let (_, oldAnchor) = SettingsV1.Settings().andAnchor()
    var record = try oldAnchor.snapshotRecord()
    record.state = ["id": "00000000000000aa", "celsius": "warm"]
    do {
      _ = try SettingsV2.Settings.andAnchor(restoring: record)
      Issue.record("restored a record whose migration failed")
    } catch let error as SnapshotError {
      #expect(error == .migrationFailed(root: "Settings", reason: #"notANumber(ArborJSON.JSONValue.string("warm"))"#))
    }
  }
}
