import ArborJSON
@testable import ArborDaemon
import Testing

/// Where models of given types sit, found from the state and its schema.
@Suite struct ModelPathsTests {
  let schema: JSONValue = [
    "$ref": "#/$defs/App",
    "$defs": [
      "App": ["type": "object", "properties": ["rows": ["type": "array", "items": ["$ref": "#/$defs/Row"]], "pick": ["anyOf": [["$ref": "#/$defs/Counter"], ["type": "null"]]], "byName": ["type": "object", "additionalProperties": ["$ref": "#/$defs/Counter"]]]],
      "Row": ["type": "object", "properties": ["counter": ["$ref": "#/$defs/Counter"]]],
      "Counter": ["type": "object", "properties": ["count": ["type": "integer"]]],
    ],
  ]
  let state: JSONValue = [
    "rows": [["counter": ["count": 1]], ["counter": ["count": 2]]], "pick": ["count": 3], "byName": ["a b": ["count": 4]],
  ]

  @Test func modelsOfATypeAreFoundThroughArraysOptionalsAndDictionaries() {
    #expect(ModelPaths.find(types: ["Counter"], in: state, schema: schema, limit: 10) == ["/byName/a b", "/pick", "/rows/0/counter", "/rows/1/counter"])
    #expect(ModelPaths.find(types: ["Row"], in: state, schema: schema, limit: 10) == ["/rows/0", "/rows/1"])
    #expect(ModelPaths.find(types: ["App"], in: state, schema: schema, limit: 10) == ["/"])
    #expect(ModelPaths.find(types: ["Counter"], in: state, schema: schema, limit: 2).count == 2)
    #expect(ModelPaths.find(types: ["Missing"], in: state, schema: schema, limit: 10).isEmpty)
    #expect(ModelPaths.find(types: ["Counter"], in: ["pick": nil], schema: schema, limit: 10).isEmpty, "a null optional holds no model")
  }
}
