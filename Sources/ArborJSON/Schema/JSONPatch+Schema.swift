/// A JSON Patch operation (RFC 6902): an object with its `op`, its `path`, and the
/// `value` or `from` the operation needs.
///
/// ```swift
/// var definitions = JSONSchemaDefinitions()
/// definitions.schema(for: JSONPatch.self)    // {"type": "array", "items": {"oneOf": [… one per op …]}}
/// ```
extension JSONPatchOperation: JSONSchemaDescribing {
  public static func jsonSchema(in definitions: inout JSONSchemaDefinitions) -> JSONSchema {
    func operation(_ ops: [String], _ members: [(String, JSONSchema)]) -> JSONSchema {
      let op = JSONSchema.enumeration(ops.map(JSONValue.string))
      let all = [("op", op), ("path", JSONSchema.string)] + members
      return .object(properties: all, required: all.map(\.0))
    }
    return .oneOf([
      operation(["add", "replace", "test"], [("value", .any)]),
      operation(["remove"], []),
      operation(["move", "copy"], [("from", .string)]),
    ])
  }
}
