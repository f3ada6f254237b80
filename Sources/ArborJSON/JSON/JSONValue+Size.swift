extension JSONValue {
  /// Whether this value holds more than `limit` values, counting every value in it once
  /// (objects and arrays included) and a string once more per 64 bytes of UTF-8. Stops
  /// counting at `limit`, so it costs at most that many steps whatever the size: the test
  /// a server makes before it decides where to encode a reply.
  ///
  /// ```swift
  /// let rows = JSONValue.array(Array(repeating: ["id": 1], count: 10_000))
  /// rows.exceeds(values: 4_096)   // true, after 4,097 of them
  /// ```
  public func exceeds(values limit: Int) -> Bool {
    var budget = limit
    return !Self.fits(self, within: &budget)
  }

  /// Counts `value` against `budget`; false once the budget is spent.
  private static func fits(_ value: JSONValue, within budget: inout Int) -> Bool {
    budget -= 1
    guard budget >= 0 else { return false }
    switch value {
    case .null, .bool, .int, .double:
      return true
    case .string(let text):
      budget -= text.utf8.count / 64
      return budget >= 0
    case .array(let elements):
      // A large array is larger than the budget whatever its elements.
      guard elements.count <= budget else { return false }
      for element in elements where !fits(element, within: &budget) { return false }
      return true
    case .object(let members):
      guard members.count <= budget else { return false }
      for member in members.values where !fits(member, within: &budget) { return false }
      return true
    }
  }
}
