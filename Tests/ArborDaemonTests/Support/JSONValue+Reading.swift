import ArborJSON

/// Reading plain values out of replies, for assertions.
extension JSONValue {
  var intValue: Int64? {
    if case .int(let value) = self { return value }
    return nil
  }

  var stringValue: String? {
    if case .string(let value) = self { return value }
    return nil
  }
}
