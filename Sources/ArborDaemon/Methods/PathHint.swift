import ArborJSON
import ArborRPC

/// What is there instead, for a path that names nothing: where the path stops matching the
/// state, and what that place holds — an array's length, an object's keys (with the one
/// probably meant), or a value that holds nothing.
///
/// ```swift
/// PathHint.describe(missing: try JSONPointer("/counter/0"), in: state)
/// // "did you mean '/counters/0'? (/ has counters, isDirty)"
/// PathHint.describe(missing: try JSONPointer("/counters/9/counter"), in: state)
/// // "/counters has 1 element (0)"
/// ```
enum PathHint {
  /// The most keys named before "…".
  static let keysShown = 8

  /// A sentence on what is at the deepest place `path` reaches in `state`; nil when the
  /// whole path resolves.
  static func describe(missing path: JSONPointer, in state: JSONValue) -> String? {
    var current = state
    for (depth, token) in path.tokens.enumerated() {
      let here = JSONPointer(tokens: Array(path.tokens.prefix(depth)))
      let place = here.tokens.isEmpty ? "/" : here.description
      let rest = Array(path.tokens.dropFirst(depth + 1))
      switch current {
      case .object(let members):
        if let next = members[token] {
          current = next
          continue
        }
        let keys = members.keys.sorted()
        let listed = keys.isEmpty ? "\(place) is an empty object" : "\(place) has \(list(keys))"
        if let meant = NameSuggestion.closest(to: token, among: keys) {
          return "did you mean '\(JSONPointer(tokens: here.tokens + [meant] + rest))'? (\(listed))"
        }
        return listed
      case .array(let elements):
        if let index = JSONPointer.index(named: token), index < elements.count {
          current = elements[index]
          continue
        }
        let length = elements.isEmpty ? "\(place) is an empty array" : "\(place) has \(elements.count) element\(elements.count == 1 ? "" : "s") (\(elements.count == 1 ? "0" : "0…\(elements.count - 1)"))"
        return JSONPointer.index(named: token) == nil ? "'\(token)' is not an index: \(length)" : length
      default:
        return "\(place) is \(article(current.typeName)) \(current.typeName), with nothing inside"
      }
    }
    return nil
  }

  private static func list(_ keys: [String]) -> String {
    keys.count <= keysShown ? keys.joined(separator: ", ") : keys.prefix(keysShown).joined(separator: ", ") + ", … (\(keys.count) keys)"
  }

  private static func article(_ word: String) -> String {
    word.first.map { "aeiou".contains($0) } == true ? "an" : "a"
  }
}
