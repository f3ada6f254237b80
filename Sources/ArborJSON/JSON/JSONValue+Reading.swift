extension JSONValue {
  /// The member `key` of an object; nil for another kind of value or a missing member.
  ///
  /// ```swift
  /// let reply: JSONValue = ["revision": 3, "value": ["count": 1]]
  /// reply["value"]?["count"]?.intValue   // 1
  /// ```
  public subscript(key: String) -> JSONValue? {
    if case .object(let members) = self { return members[key] }
    return nil
  }

  /// The element at `index` of an array; nil for another kind of value or an index out of range.
  public subscript(index: Int) -> JSONValue? {
    if case .array(let elements) = self, elements.indices.contains(index) { return elements[index] }
    return nil
  }

  /// The string, when the value is one.
  public var stringValue: String? {
    if case .string(let value) = self { return value }
    return nil
  }

  /// The integer, when the value is one (`3`, not `3.5`).
  public var intValue: Int64? {
    if case .int(let value) = self { return value }
    return nil
  }

  /// The number as a `Double`, when the value is a number.
  public var doubleValue: Double? {
    switch self {
    case .int(let value): return Double(value)
    case .double(let value): return value
    default: return nil
    }
  }

  /// The Boolean, when the value is one.
  public var boolValue: Bool? {
    if case .bool(let value) = self { return value }
    return nil
  }

  /// The members, when the value is an object.
  public var objectValue: [String: JSONValue]? {
    if case .object(let members) = self { return members }
    return nil
  }

  /// The elements, when the value is an array.
  public var arrayValue: [JSONValue]? {
    if case .array(let elements) = self { return elements }
    return nil
  }
}
