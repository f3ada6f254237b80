extension JSONSchemaDefinitions {
  /// The member names a keyed `Decodable` type reads, in the order its `init(from:)`
  /// asks for them (the order of its stored properties, for a synthesized one); empty for
  /// a type that reads no keyed container or cannot be inferred. Found the way its schema
  /// is (``schema(for:)``): so a list of accepted names need not be written a second time.
  ///
  /// ```swift
  /// struct Page: Decodable { var since: Int; var limit: Int? }
  /// JSONSchemaDefinitions.memberNames(of: Page.self)   // ["since", "limit"]
  /// ```
  public static func memberNames<T: Decodable>(of type: T.Type) -> [String] {
    let context = InferenceContext(definitions: JSONSchemaDefinitions())
    let root = ShapeNode()
    guard (try? T(from: RecordingDecoder(context: context, node: root, codingPath: []))) != nil else { return [] }
    return root.propertyOrder
  }
}
