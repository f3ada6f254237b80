import ArborJSON

extension JSONValue {
  /// The same state with every model id replaced by its order of first appearance
  /// (`"#0"`, `"#1"`, …, depth first, keys in sorted order), so that two trees built by the
  /// same operations compare equal although their new models got different ids.
  ///
  /// ```swift
  /// #expect(try live.state().value.normalizingModelIDs() == restored.state().value.normalizingModelIDs())
  /// ```
  public func normalizingModelIDs() -> JSONValue {
    var numbers: [String: Int] = [:]
    return normalized(&numbers)
  }

  private func normalized(_ numbers: inout [String: Int]) -> JSONValue {
    switch self {
    case .object(let members):
      var result: [String: JSONValue] = [:]
      for key in members.keys.sorted() {
        let value = members[key]!
        if key == "id", case .string(let id) = value {
          let number = numbers[id] ?? numbers.count
          numbers[id] = number
          result[key] = .string("#\(number)")
        } else {
          result[key] = value.normalized(&numbers)
        }
      }
      return .object(result)
    case .array(let elements):
      return .array(elements.map { $0.normalized(&numbers) })
    default:
      return self
    }
  }
}
