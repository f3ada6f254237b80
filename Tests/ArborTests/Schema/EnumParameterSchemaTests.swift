import Arbor
import ArborJSON
import ArborTesting
import Foundation
import ProcessSlots
import Testing

enum HeaterMode: String, Codable, Sendable, CaseIterable { case off, heat, cool }
enum HeaterSpeed: Int, Codable, Sendable, CaseIterable { case slow = 1, fast = 3 }
/// Not CaseIterable: its values cannot be listed.
enum HeaterShade: String, Codable, Sendable { case light, dark }

@Model struct EnumHeater {
  var mode: HeaterMode = .off
  var speed: HeaterSpeed = .slow
  var shade: HeaterShade = .light

  @Intent func setMode(to mode: HeaterMode) { self.mode = mode }
  @Intent func setSpeed(to speed: HeaterSpeed) { self.speed = speed }
  @Intent func setShade(to shade: HeaterShade) { self.shade = shade }
  @Intent func play(_ modes: [HeaterMode]) { mode = modes.last ?? mode }
}

/// Enums with raw values as intent parameters: the schema is the raw value's type with an
/// `enum` of the raw values, Python's `jsonschema` agrees, and a value that is not a case
/// is refused with the cases there are.
@Suite(.startsProcesses) struct EnumParameterSchemaTests {
  static func parameter(_ name: String, of intent: String) -> JSONValue? {
    var definitions = JSONSchemaDefinitions()
    let schema = EnumHeater.intentSchemas(in: &definitions).first { $0.name == intent }?.parameters
    return schema?.value["properties"]?[name]
  }

  @Test func caseIterableEnumsAreTheirRawValuesTypeWithAnEnum() {
    #expect(Self.parameter("to", of: "setMode") == ["type": "string", "enum": ["off", "heat", "cool"]])
    #expect(Self.parameter("to", of: "setSpeed") == ["type": "integer", "enum": [1, 3]])
    #expect(Self.parameter("arg0", of: "play") == ["type": "array", "items": ["type": "string", "enum": ["off", "heat", "cool"]]])
  }

  @Test func anEnumThatIsNotCaseIterableIsItsRawValuesTypeAndSaysHowToListThem() throws {
    let shade = try #require(Self.parameter("to", of: "setShade"))
    #expect(shade["type"] == "string")
    let description = try #require(shade["description"]?.stringValue)
    #expect(description.contains("Conform `HeaterShade` to CaseIterable"), "\(description)")
  }

  @Test func pythonsJSONSchemaAcceptsTheCasesAndRejectsTheRest() async throws {
    var definitions = JSONSchemaDefinitions()
    let intents = EnumHeater.intentSchemas(in: &definitions)
    func document(_ intent: String) throws -> JSONSchema {
      let parameters = try #require(intents.first { $0.name == intent }?.parameters)
      return definitions.document(root: parameters, title: intent)
    }
    let modes = [#"{"to": "heat"}"#, #"{"to": "fan"}"#, #"{"to": 1}"#].map { Data($0.utf8) }
    #expect(try await InferredSchemaValidationTests.validate(document: document("setMode"), modes).map(\.isEmpty) == [true, false, false])
    let speeds = [#"{"to": 3}"#, #"{"to": 2}"#, #"{"to": "fast"}"#].map { Data($0.utf8) }
    #expect(try await InferredSchemaValidationTests.validate(document: document("setSpeed"), speeds).map(\.isEmpty) == [true, false, false])
    let shades = [#"{"to": "dark"}"#, #"{"to": 2}"#].map { Data($0.utf8) }
    #expect(try await InferredSchemaValidationTests.validate(document: document("setShade"), shades).map(\.isEmpty) == [true, false])
  }

  @Test func aValueThatIsNotACaseIsRefusedWithTheCases() async throws {
    let (heater, anchor) = EnumHeater().andAnchor()
    let dispatcher = IntentDispatcher(anchor)
    func reason(_ intent: String, _ parameters: JSONValue) async -> (parameter: String, reason: String)? {
      do {
        _ = try await dispatcher.callWithDeadline(intent, on: .root, parameters: parameters)
        Issue.record("\(intent) \(parameters) succeeded")
      } catch IntentError.invalidParameter(_, let parameter, let reason) {
        return (parameter, reason)
      } catch {
        Issue.record("not an invalid parameter: \(error)")
      }
      return nil
    }
    let mode = await reason("setMode", ["to": "fan"])
    #expect(mode?.parameter == "to")
    #expect(mode?.reason == #""fan" is not one of "off", "heat", "cool""#)
    let speed = await reason("setSpeed", ["to": 2])
    #expect(speed?.reason == #"2 is not one of 1, 3"#)
    let mistyped = await reason("setMode", ["to": 7])
    #expect(mistyped?.reason == #"7 is not one of "off", "heat", "cool""#)
    let nested = await reason("play", ["arg0": ["heat", "fan"]])
    #expect(nested?.parameter == "arg0/1")
    #expect(nested?.reason == #""fan" is not one of "off", "heat", "cool""#)
    // Without a list of cases, the decoder's reason stays.
    let shade = await reason("setShade", ["to": "grey"])
    #expect(shade?.reason.contains("grey") == true, "\(String(describing: shade))")
    #expect(heater.mode == .off && heater.speed == .slow && anchor.revision == 0, "a refused call changes nothing")

    _ = try await dispatcher.callWithDeadline("setMode", on: .root, parameters: ["to": "cool"])
    #expect(heater.mode == .cool)
  }
}
