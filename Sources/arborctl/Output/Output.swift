import ArborJSON
import Foundation

/// Prints results: compact JSON lines for programs, readable text for people.
enum Output {
  static func json(_ value: JSONValue) {
    print(value.jsonString)
  }

  /// `value` indented, keys sorted.
  static func pretty(_ value: JSONValue) {
    print(prettyString(value))
  }

  /// `value` as indented JSON text, keys sorted.
  static func prettyString(_ value: JSONValue) -> String {
    guard let object = try? JSONSerialization.jsonObject(with: value.jsonData(), options: [.fragmentsAllowed]),
      let data = try? JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys, .fragmentsAllowed, .withoutEscapingSlashes])
    else { return value.jsonString }
    return String(decoding: data, as: UTF8.self)
  }

  /// A patch as JSON (its RFC 6902 form).
  static func json(_ patch: JSONPatch) -> JSONValue {
    (try? JSONValueEncoder().encode(patch)) ?? .array([])
  }

  /// One patch operation as a readable line: `replace /count = 2`, coloured on a terminal.
  static func describe(_ operation: JSONPatchOperation, prefix: String = "") -> String {
    let json = (try? JSONValueEncoder().encode(operation)) ?? .null
    let path = Style.path(prefix + (json["path"]?.stringValue ?? ""))
    switch operation.op {
    case "add": return Style.added("add    ") + " \(path) = \(json["value"]?.jsonString ?? "")"
    case "remove": return Style.removed("remove ") + " \(path)"
    case "replace": return "replace  \(path) = \(json["value"]?.jsonString ?? "")"
    default:
      let from = json["from"]?.stringValue.map { " from \(prefix + $0)" } ?? ""
      return "\(operation.op.padding(toLength: 8, withPad: " ", startingAt: 0)) \(path)\(from)"
    }
  }

  /// Writes `text` to standard output now (a terminal's redraw must not wait in a buffer).
  static func write(_ text: String) {
    StandardOutput.write(text)
  }

  /// `key: value` lines, the keys padded to one width.
  static func table(_ rows: [(String, String)]) {
    let width = rows.map(\.0.count).max() ?? 0
    for (key, value) in rows {
      print(Style.dim(key + ":") + String(repeating: " ", count: width - key.count + 1) + value)
    }
  }

  /// A value as text in a table: strings bare, the rest as JSON.
  static func text(_ value: JSONValue) -> String {
    if case .string(let text) = value { return text }
    return value.jsonString
  }
}
