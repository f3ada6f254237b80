import Foundation
import Testing

@testable import ArborJSON

@Suite struct JSONSchemaTests {
  struct Address: Codable {
    var street: String
    var postcode: String?
  }

  struct Customer: Codable {
    var name: String
    var age: Int
    var address: Address
    var previous: [Address]
    var nickname: String?
  }

  struct TreeNode: Codable {
    var label: String
    var children: [TreeNode]
  }

  enum Size: String, Codable, CaseIterable { case small, medium, large }
  enum Priority: Int, Codable, CaseIterable { case low = 1, high = 9 }
  enum Mood: String, Codable { case calm, cross }

  enum Shape: Codable {
    case circle(radius: Double)
    case rectangle(Double, Double)
  }

  struct Drawing: Codable {
    var title: String
    var shape: Shape
  }

  enum Stroke: Codable, JSONSchemaDescribing {
    case solid(width: Double)
    case none

    static func jsonSchema(in definitions: inout JSONSchemaDefinitions) -> JSONSchema {
      definitions.define("Stroke") { _ in
        .oneOf([
          .object(
            properties: [("solid", .object(properties: [("width", .number)], required: ["width"]))], required: ["solid"]),
          .object(properties: [("none", .object(properties: [:]))], required: ["none"]),
        ])
      }
    }
  }

  struct Outline: Codable {
    var stroke: Stroke
    var closed: Bool
  }

  struct Opaque {}

  static func schema<T>(_ type: T.Type) -> JSONSchema {
    var definitions = JSONSchemaDefinitions()
    return definitions.schema(for: type)
  }

  static func description(_ schema: JSONSchema) -> String? {
    guard case .object(let object) = schema.value, case .string(let text)? = object["description"] else { return nil }
    return text
  }

  @Test func primitives() {
    #expect(Self.schema(Int.self).value == ["type": "integer"])
    #expect(Self.schema(Int64.self).value == ["type": "integer"])
    #expect(Self.schema(UInt8.self).value == ["type": "integer", "minimum": 0, "maximum": 255])
    #expect(Self.schema(Int16.self).value == ["type": "integer", "minimum": -32768, "maximum": 32767])
    #expect(Self.schema(UInt64.self).value == ["type": "integer", "minimum": 0])
    #expect(Self.schema(Double.self).value == ["type": "number"])
    #expect(Self.schema(Float.self).value == ["type": "number"])
    #expect(Self.schema(Decimal.self).value == ["type": "number"])
    #expect(Self.schema(Bool.self).value == ["type": "boolean"])
    #expect(Self.schema(String.self).value == ["type": "string"])
    #expect(Self.schema(UUID.self).value == ["type": "string", "format": "uuid"])
    #expect(Self.schema(URL.self).value == ["type": "string", "format": "uri"])
    #expect(Self.schema(Data.self).value == ["type": "string", "contentEncoding": "base64"])
    #expect(Self.schema(JSONValue.self).value == [:])
    guard case .object(let date) = Self.schema(Date.self).value else {
      Issue.record("Date's schema is not an object")
      return
    }
    #expect(date["type"] == "number")
  }

  @Test func optionalsAcceptNullOnce() {
    let expected: JSONValue = ["anyOf": [["type": "integer"], ["type": "null"]]]
    #expect(Self.schema(Int?.self).value == expected)
    #expect(Self.schema(Int??.self).value == expected)
    #expect(JSONSchema.nullable(.null) == .null)
    #expect(JSONSchema.nullable(.any) == .any)
  }

  @Test func arraysAndSets() {
    #expect(Self.schema([String].self).value == ["type": "array", "items": ["type": "string"]])
    #expect(Self.schema(ContiguousArray<Bool>.self).value == ["type": "array", "items": ["type": "boolean"]])
    #expect(Self.schema([[Int]].self).value == ["type": "array", "items": ["type": "array", "items": ["type": "integer"]]])
    #expect(Self.schema(Set<String>.self).value == ["type": "array", "items": ["type": "string"], "uniqueItems": true])
  }

  @Test func dictionaries() {
    #expect(Self.schema([String: Int].self).value == ["type": "object", "additionalProperties": ["type": "integer"]])
    #expect(
      Self.schema([Int: String].self).value == [
        "type": "object", "additionalProperties": ["type": "string"], "propertyNames": ["pattern": "^-?[0-9]+$"],
      ])
    // Keys that are neither String, Int nor CodingKeyRepresentable: alternating keys and values.
    #expect(
      Self.schema([Double: Bool].self).value == [
        "type": "array", "items": ["anyOf": [["type": "number"], ["type": "boolean"]]],
      ])
  }

  @Test func nestedStructsAreDefinedAndReferenced() {
    var definitions = JSONSchemaDefinitions()
    let root = definitions.schema(for: Customer.self)
    #expect(root == .reference("Customer"))
    #expect(root.value == ["$ref": "#/$defs/Customer"])
    #expect(definitions.definitions.keys.sorted() == ["Address", "Customer"])
    #expect(
      definitions.definitions["Customer"]?.value == [
        "type": "object",
        "properties": [
          "name": ["type": "string"],
          "age": ["type": "integer"],
          "address": ["$ref": "#/$defs/Address"],
          "previous": ["type": "array", "items": ["$ref": "#/$defs/Address"]],
          "nickname": ["anyOf": [["type": "string"], ["type": "null"]]],
        ],
        "required": ["name", "age", "address", "previous"],
      ])
    #expect(
      definitions.definitions["Address"]?.value == [
        "type": "object",
        "properties": ["street": ["type": "string"], "postcode": ["anyOf": [["type": "string"], ["type": "null"]]]],
        "required": ["street"],
      ])
  }

  @Test func recursiveStructTerminates() {
    var definitions = JSONSchemaDefinitions()
    #expect(definitions.schema(for: TreeNode.self) == .reference("TreeNode"))
    #expect(
      definitions.definitions["TreeNode"]?.value == [
        "type": "object",
        "properties": ["label": ["type": "string"], "children": ["type": "array", "items": ["$ref": "#/$defs/TreeNode"]]],
        "required": ["label", "children"],
      ])
    // Asking again reuses the definition.
    #expect(definitions.schema(for: [TreeNode].self).value == ["type": "array", "items": ["$ref": "#/$defs/TreeNode"]])
    #expect(definitions.definitions.count == 1)
  }

  @Test func caseIterableEnumsListTheirRawValues() {
    #expect(Self.schema(Size.self).value == ["type": "string", "enum": ["small", "medium", "large"]])
    #expect(Self.schema(Priority.self).value == ["type": "integer", "enum": [1, 9]])
  }

  @Test func allowedValuesAreFoundWhereTheyAre() {
    struct Order: Codable {
      var size: Size
      var extras: [Size]?
      var byName: [String: Priority]
      var note: String
    }
    var definitions = JSONSchemaDefinitions()
    let order = definitions.schema(for: Order.self)
    func allowed(_ tokens: [String]) -> [JSONValue]? { order.allowedValues(at: tokens, definitions: definitions.definitions) }
    #expect(allowed(["size"]) == ["small", "medium", "large"])
    #expect(allowed(["extras", "2"]) == ["small", "medium", "large"])
    #expect(allowed(["byName", "anyone"]) == [1, 9])
    #expect(allowed(["note"]) == nil)
    #expect(allowed([]) == nil)
    #expect(allowed(["nothing", "here"]) == nil)
  }

  @Test func enumsWithAssociatedValuesFallBackToAnyWithAHint() throws {
    let shape = Self.schema(Shape.self)
    let text = try #require(Self.description(shape))
    #expect(text.contains("`Shape`"))
    #expect(text.contains("JSONSchemaDescribing"))
    #expect(shape.value == ["description": .string(text)])

    // A struct holding one cannot be decoded either, and the hint names the enum.
    var definitions = JSONSchemaDefinitions()
    let drawing = definitions.schema(for: Drawing.self)
    let drawingText = try #require(Self.description(drawing))
    #expect(drawingText.contains("`Drawing`"))
    #expect(drawingText.contains("Conform `Shape` to JSONSchemaDescribing"))
    #expect(definitions.definitions.isEmpty)

    // A RawRepresentable enum that is not CaseIterable is its raw value's type, with a
    // description that says how to list its values.
    let mood = Self.schema(Mood.self)
    #expect(mood.value["type"] == "string")
    #expect(Self.description(mood)?.contains("Conform `Mood` to CaseIterable") == true)
  }

  @Test func describingEnumsLetTheirContainersBeInferred() {
    var definitions = JSONSchemaDefinitions()
    #expect(definitions.schema(for: Outline.self) == .reference("Outline"))
    #expect(
      definitions.definitions["Outline"]?.value == [
        "type": "object",
        "properties": ["stroke": ["$ref": "#/$defs/Stroke"], "closed": ["type": "boolean"]],
        "required": ["stroke", "closed"],
      ])
    #expect(definitions.definitions["Stroke"] != nil)
  }

  @Test func typesThatAreNotCodableAreDescribedAsSuch() {
    let schema = Self.schema(Opaque.self)
    #expect(Self.description(schema)?.contains("`Opaque` is not Codable") == true)
  }

  @Test func defineGuardsRecursionAndRegistersOnce() {
    var definitions = JSONSchemaDefinitions()
    var builds = 0
    let reference = definitions.define("List") { definitions in
      builds += 1
      let next = definitions.define("List") { _ in
        builds += 1
        return .null
      }
      return .object(properties: [("next", .nullable(next))], required: [])
    }
    _ = definitions.define("List") { _ in
      builds += 1
      return .null
    }
    #expect(builds == 1)
    #expect(reference.value == ["$ref": "#/$defs/List"])
    #expect(
      definitions.definitions["List"]?.value == [
        "type": "object", "properties": ["next": ["anyOf": [["$ref": "#/$defs/List"], ["type": "null"]]]],
      ])
  }

  @Test func documentAddsDialectTitleAndDefinitions() {
    var definitions = JSONSchemaDefinitions()
    let root = definitions.schema(for: TreeNode.self)
    let document = definitions.document(root: root, title: "Tree")
    guard case .object(let object) = document.value else {
      Issue.record("the document is not an object")
      return
    }
    #expect(object["$schema"] == "https://json-schema.org/draft/2020-12/schema")
    #expect(object["$ref"] == "#/$defs/TreeNode")
    #expect(object["title"] == "Tree")
    #expect(object["$defs"] == ["TreeNode": definitions.definitions["TreeNode"]!.value])
    #expect(JSONSchemaDefinitions().document(root: .integer).value == [
      "type": "integer", "$schema": "https://json-schema.org/draft/2020-12/schema",
    ])
  }

  @Test func builders() throws {
    #expect(
      JSONSchema.object(properties: ["x": .number], required: ["x"], additionalProperties: false).value == [
        "type": "object", "properties": ["x": ["type": "number"]], "required": ["x"], "additionalProperties": false,
      ])
    #expect(JSONSchema.dictionary(.boolean).value == ["type": "object", "additionalProperties": ["type": "boolean"]])
    #expect(JSONSchema.enumeration(["a", 1]).value == ["enum": ["a", 1]])
    #expect(JSONSchema.string(format: "date-time").value == ["type": "string", "format": "date-time"])
    #expect(JSONSchema.integer.description("Count.").value == ["type": "integer", "description": "Count."])
    #expect(JSONSchema.reference("a/b~c").value == ["$ref": "#/$defs/a~1b~0c"])
    #expect(JSONSchema.reference("a/b~c").referencedName == "a/b~c")
    let encoded = try JSONEncoder().encode(JSONSchema.array(.string))
    #expect(try JSONDecoder().decode(JSONValue.self, from: encoded) == ["type": "array", "items": ["type": "string"]])
  }
}
