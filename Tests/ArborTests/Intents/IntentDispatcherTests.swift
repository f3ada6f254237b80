import Arbor
import ConcurrencyExtras
import ArborJSON
import ArborTesting
import Testing

struct Reading: Codable, Sendable, Equatable {
  var value: Double
  var unit: String
}

enum SensorError: Error, CustomStringConvertible {
  case offline(String)
  var description: String {
    switch self {
    case .offline(let name): return "\(name) is offline"
    }
  }
}

@Model struct Sensor {
  var name: String
  var readings: [Reading] = []
  var online = true

  @Intent func record(_ reading: Reading) -> Int {
    readings.append(reading)
    return readings.count
  }

  @Intent func rename(to name: String, suffix: String? = nil) {
    self.name = name + (suffix ?? "")
  }

  @Intent func calibrate(offset: Double = 0.5, times: Int) async throws -> [Double] {
    guard online else { throw SensorError.offline(name) }
    await Task.yield()
    return readings.map { $0.value + offset * Double(times) }
  }

  @Intent func goOffline() { online = false }

  /// Two writes outside a transaction: two revisions.
  @Intent func renameTwice(to name: String) {
    self.name = name + "-draft"
    self.name = name
  }

  /// Reads only.
  @Intent func describe() -> String { "\(name): \(readings.count)" }

  /// Records a reading once `gate` opens, then goes offline in a task of that task.
  @Intent func refresh(gate: String) {
    node.task {
      await Gates.named(gate).wait()
      readings.append(Reading(value: 1, unit: "refreshed"))
      node.task {
        await Task.yield()
        online = false
      }
    }
  }

  func notAnIntent() { readings = [] }
}

@Model struct Lab {
  var sensors: [Sensor] = []
  var title = "lab"

  @Intent func addSensor(named name: String) -> ModelID {
    let sensor = Sensor(name: name)
    sensors.append(sensor)
    return sensor.id
  }
}

/// Gates by name, so that an intent (whose parameters are Codable) can wait on one.
enum Gates {
  private static let gates = LockIsolated<[String: Gate]>([:])
  static func named(_ name: String) -> Gate {
    gates.withValue { gates in
      if let gate = gates[name] { return gate }
      let gate = Gate()
      gates[name] = gate
      return gate
    }
  }
}

@Suite struct IntentDispatcherTests {
  func makeLab() -> (Lab, ModelAnchor<Lab>, IntentDispatcher<Lab>) {
    let (lab, anchor) = Lab(sensors: [Sensor(name: "a"), Sensor(name: "b")]).andAnchor()
    return (lab, anchor, IntentDispatcher(anchor))
  }

  @Test func callsAnIntentByPathWithLabelsAsKeysAndReturnsItsResult() async throws {
    let (lab, anchor, dispatcher) = makeLab()
    let outcome = try await dispatcher.callWithDeadline("record", on: .path("/sensors/1"), parameters: ["arg0": ["value": 21.5, "unit": "C"]])
    #expect(outcome.result == 1)
    #expect(outcome.revision == anchor.revision)
    #expect(outcome.revision == 1)
    #expect(lab.sensors[1].readings == [Reading(value: 21.5, unit: "C")])

    let renamed = try await dispatcher.callWithDeadline("rename", on: .path("/sensors/0"), parameters: ["to": "north", "suffix": "-1"])
    #expect(renamed.result == nil)
    #expect(lab.sensors[0].name == "north-1")
    _ = try await dispatcher.callWithDeadline("rename", on: .path("/sensors/0"), parameters: ["to": "south"])
    #expect(lab.sensors[0].name == "south", "an optional parameter may be left out")
  }

  @Test func asyncIntentsWithDefaultsAndTheRootAsTarget() async throws {
    let (lab, _, dispatcher) = makeLab()
    let added = try await dispatcher.callWithDeadline("addSensor", parameters: ["named": "c"])
    #expect(added.result == .string(lab.sensors[2].id.description))
    _ = try await dispatcher.callWithDeadline("record", on: .path("/sensors/2"), parameters: ["arg0": ["value": 1, "unit": "V"]])
    let calibrated = try await dispatcher.callWithDeadline("calibrate", on: .path("/sensors/2"), parameters: ["times": 2])
    #expect(calibrated.result == [2.0])
    let explicit = try await dispatcher.callWithDeadline("calibrate", on: .path("/sensors/2"), parameters: ["times": 1, "offset": 10])
    #expect(explicit.result == [11.0])
  }

  @Test func settledWaitsForTheTasksTheIntentStartedAndTheirs() async throws {
    let (lab, anchor, dispatcher) = makeLab()
    let gate = "settled-\(UInt64.random(in: 0...UInt64.max))"
    async let settled = dispatcher.callWithDeadline("refresh", on: .path("/sensors/0"), parameters: ["gate": .string(gate)], wait: .settled)
    // The committed call returns while the gate is shut: its task has not written.
    let committed = try await dispatcher.callWithDeadline("refresh", on: .path("/sensors/1"), parameters: ["gate": .string(gate)])
    #expect(lab.sensors[1].readings.isEmpty)
    #expect(committed.revision == anchor.revision)
    Gates.named(gate).open()
    let outcome = try await settled
    // Both writes of the first sensor's tasks are in, and in the revision returned.
    #expect(lab.sensors[0].readings == [Reading(value: 1, unit: "refreshed")])
    #expect(lab.sensors[0].online == false)
    #expect(outcome.revision >= 2)
  }

  @Test func anOutcomeNamesTheIntentsOwnCommitsNotAnotherWritersLater() throws {
    let (lab, anchor, dispatcher) = makeLab()
    let twice = try #require(try dispatcher.callSynchronously("renameTwice", on: .path("/sensors/0"), parameters: ["to": "east"]))
    #expect(twice.revision == 2)
    #expect(twice.commits == 1...2)
    #expect(twice.commitCount == 2)
    // Another writer commits after the intent: the outcome still names the intent's own.
    let reading = try #require(try dispatcher.callSynchronously("record", on: .path("/sensors/1"), parameters: ["arg0": ["value": 1, "unit": "V"]]))
    lab.sensors[0].online = false
    #expect(reading.revision == 3)
    #expect(anchor.revision == 4)
    let described = try #require(try dispatcher.callSynchronously("describe", on: .path("/sensors/1")))
    #expect(described.commits == nil, "an intent that changed nothing committed nothing")
    #expect(described.revision == 4, "and names the revision its reads saw")
  }

  @Test func aSynchronousIntentRunsWithoutSuspendingAndAnAsyncOneIsLeftAlone() throws {
    let (lab, anchor, dispatcher) = makeLab()
    let outcome = try dispatcher.callSynchronously("record", on: .path("/sensors/0"), parameters: ["arg0": ["value": 2, "unit": "V"]])
    #expect(outcome?.result == 1)
    #expect(outcome?.revision == anchor.revision)
    #expect(lab.sensors[0].readings.count == 1)
    let revision = anchor.revision
    #expect(try dispatcher.callSynchronously("calibrate", on: .path("/sensors/0"), parameters: ["times": 1]) == nil)
    #expect(anchor.revision == revision, "an async intent is not run by callSynchronously")
    #expect(throws: IntentError.self) { try dispatcher.callSynchronously("nope", on: .path("/sensors/0")) }
  }

  @Test func anIDFindsTheSameModelAfterReordering() async throws {
    let (lab, _, dispatcher) = makeLab()
    let b = lab.sensors[1]
    lab.sensors.swapAt(0, 1)
    _ = try await dispatcher.callWithDeadline("goOffline", on: .id(b.id))
    #expect(b.online == false)
    #expect(lab.sensors[1].online == true)
  }

  @Test func anIDIsFoundWhileItsModelIsInTheTreeOnly() async throws {
    let (lab, _, dispatcher) = makeLab()
    let a = lab.sensors[0]
    let added = try await dispatcher.callWithDeadline("addSensor", parameters: ["named": "c"])
    guard case .string(let text) = added.result, let newID = ModelID(text) else { Issue.record("no id: \(added.result)"); return }
    _ = try await dispatcher.callWithDeadline("goOffline", on: .id(newID))
    #expect(lab.sensors[2].online == false, "a model added after anchoring is found by id")
    _ = try await dispatcher.callWithDeadline("addSensor", on: .id(lab.id), parameters: ["named": "d"])
    #expect(lab.sensors.count == 4, "the root is found by its id")
    lab.sensors.removeFirst()
    #expect(await error("goOffline", on: .id(a.id), in: dispatcher)?.description == "no model with id \(a.id)")
    lab.sensors.append(a)
    _ = try await dispatcher.callWithDeadline("goOffline", on: .id(a.id))
    #expect(a.online == false, "a model re-added is found again")
  }

  func error(
    _ intent: String, on target: IntentTarget = .root, _ parameters: JSONValue = [:], in dispatcher: IntentDispatcher<Lab>,
    fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
  ) async -> IntentError? {
    do {
      _ = try await dispatcher.callWithDeadline(
        intent, on: target, parameters: parameters, fileID: fileID, filePath: filePath, line: line, column: column)
      Issue.record("\(intent) succeeded")
      return nil
    } catch let error as IntentError {
      return error
    } catch {
      Issue.record("not an IntentError: \(error)")
      return nil
    }
  }

  @Test func unknownTargetsAndIntentsAreNamed() async throws {
    let (_, _, dispatcher) = makeLab()
    #expect(await error("goOffline", on: .path("/sensors/7"), in: dispatcher)?.description == "no model at '/sensors/7'")
    // An index token is digits without leading zeros, as in a JSON Pointer.
    for token in ["00", "01", "-0", "0x", ""] {
      #expect(await error("goOffline", on: .path("/sensors/\(token)"), in: dispatcher)?.description == "no model at '/sensors/\(token)'")
    }
    #expect(await error("goOffline", on: .path("/title"), in: dispatcher)?.description == "no model at '/title'")
    #expect(await error("goOffline", on: .path("sensors"), in: dispatcher)?.description.hasPrefix("no model at 'sensors': ") == true)
    #expect(await error("goOffline", on: .id(ModelID(rawValue: 42)), in: dispatcher)?.description == "no model with id 000000000000002a")
    #expect(
      await error("notAnIntent", on: .path("/sensors/0"), in: dispatcher)?.description
        == "Sensor has no intent 'notAnIntent' (it has record, rename, calibrate, goOffline, renameTwice, describe, refresh)")
    #expect(await error("record", in: dispatcher) == .unknownIntent(intent: "record", modelType: "Lab", available: ["addSensor"]))
  }

  @Test func badParametersAreNamed() async throws {
    let (lab, anchor, dispatcher) = makeLab()
    let sensor = IntentTarget.path("/sensors/0")
    #expect(await error("rename", on: sensor, [1, 2], in: dispatcher)?.description == "the parameters of rename must be a JSON object, not array")
    #expect(await error("rename", on: sensor, [:], in: dispatcher)?.description == "parameter 'to' of rename is missing")
    #expect(
      await error("rename", on: sensor, ["to": "x", "colour": "red"], in: dispatcher)?.description
        == "rename has no parameter 'colour' (it takes to, suffix)")
    let mistyped = await error("rename", on: sensor, ["to": 5], in: dispatcher)
    guard case .invalidParameter("rename", "to", let reason) = mistyped else { Issue.record("got \(String(describing: mistyped))"); return }
    #expect(reason.hasPrefix("expected String"))
    let nested = await error("record", on: sensor, ["arg0": ["value": "warm", "unit": "C"]], in: dispatcher)
    guard case .invalidParameter("record", "arg0/value", _) = nested else { Issue.record("got \(String(describing: nested))"); return }
    #expect(lab.sensors[0].readings.isEmpty && lab.sensors[0].name == "a", "a refused call changes nothing")
    #expect(anchor.revision == 0)
  }

  @Test func anIntentsOwnErrorComesBackTyped() async throws {
    let (_, _, dispatcher) = makeLab()
    _ = try await dispatcher.callWithDeadline("goOffline", on: .path("/sensors/0"))
    #expect(
      await error("calibrate", on: .path("/sensors/0"), ["times": 1], in: dispatcher)
        == .failed(intent: "calibrate", errorType: "SensorError", message: "a is offline"))
  }

  @Test func intentNamesAndSchemas() throws {
    #expect(Sensor.intentNames == ["record", "rename", "calibrate", "goOffline", "renameTwice", "describe", "refresh"])
    var definitions = JSONSchemaDefinitions()
    let schemas = Sensor.intentSchemas(in: &definitions)
    let rename = try #require(schemas.first { $0.name == "rename" })
    #expect(
      rename.parameters.value == [
        "type": "object", "additionalProperties": false, "required": ["to"],
        "properties": ["to": ["type": "string"], "suffix": ["anyOf": [["type": "string"], ["type": "null"]]]],
      ])
    #expect(rename.result == .null)
    let calibrate = try #require(schemas.first { $0.name == "calibrate" })
    #expect(calibrate.result.value == ["type": "array", "items": ["type": "number"]])
    #expect(calibrate.parameters.value.objectValue?["required"] == ["times"])
  }
}
