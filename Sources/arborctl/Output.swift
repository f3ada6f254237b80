import ArborJSON
import Foundation

/// Prints results: compact JSON lines for programs, readable text for people.
enum Output {
  static func json(_ value: JSONValue) {
    print(value.jsonString)
  }

  /// `value` indented, keys sorted.
  static func pretty(_ value: JSONValue) {
    guard let object = try? JSONSerialization.jsonObject(with: value.jsonData(), options: [.fragmentsAllowed]),
      let data = try? JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys, .fragmentsAllowed, .withoutEscapingSlashes])
    else {
      print(value.jsonString)
      return
    }
    print(String(decoding: data, as: UTF8.self))
  }

  /// `key: value` lines, the keys padded to one width.
  static func table(_ rows: [(String, String)]) {
    let width = rows.map(\.0.count).max() ?? 0
    for (key, value) in rows {
      print(key + ":" + String(repeating: " ", count: width - key.count + 1) + value)
    }
  }

  /// A value as text in a table: strings bare, the rest as JSON.
  static func text(_ value: JSONValue) -> String {
    if case .string(let text) = value { return text }
    return value.jsonString
  }
}
