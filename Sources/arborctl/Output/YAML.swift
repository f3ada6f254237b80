import ArborJSON

/// JSON values as YAML, for `--output yaml`: block mappings (keys sorted, as in the JSON
/// lines) and sequences, indented by two spaces; a string stays plain only when it cannot
/// be read as anything else, and is double-quoted otherwise (JSON's escapes are YAML's).
///
/// ```swift
/// YAML.document(["revision": 3, "value": ["count": 1, "id": "3ebfc8ae0913d5f6"]])
/// // ---
/// // revision: 3
/// // value:
/// //   count: 1
/// //   id: "3ebfc8ae0913d5f6"
/// ```
enum YAML {
  /// `value` as one YAML document: a `---` line, then the value, each line ending in `\n`.
  static func document(_ value: JSONValue) -> String {
    var lines = ["---"]
    block(value, indent: 0, into: &lines)
    return lines.joined(separator: "\n") + "\n"
  }

  /// Appends the lines of `value` at `indent` spaces.
  private static func block(_ value: JSONValue, indent: Int, into lines: inout [String]) {
    let pad = String(repeating: " ", count: indent)
    switch value {
    case .object(let members) where !members.isEmpty:
      for key in members.keys.sorted() {
        let member = members[key]!
        if let inline = inline(member) {
          lines.append(pad + string(key) + ": " + inline)
        } else {
          lines.append(pad + string(key) + ":")
          block(member, indent: indent + 2, into: &lines)
        }
      }
    case .array(let elements) where !elements.isEmpty:
      for element in elements {
        if let inline = inline(element) {
          lines.append(pad + "- " + inline)
        } else {
          // A collection in a sequence starts on the dash's line: `- key: value`.
          var nested: [String] = []
          block(element, indent: indent + 2, into: &nested)
          nested[0] = pad + "- " + nested[0].dropFirst(indent + 2)
          lines += nested
        }
      }
    default:
      lines.append(pad + (inline(value) ?? "null"))
    }
  }

  /// A scalar or an empty collection on one line; nil for a collection with members.
  private static func inline(_ value: JSONValue) -> String? {
    switch value {
    case .null: return "null"
    case .bool(let flag): return flag ? "true" : "false"
    case .int, .double: return value.jsonString
    case .string(let text): return string(text)
    case .array(let elements): return elements.isEmpty ? "[]" : nil
    case .object(let members): return members.isEmpty ? "{}" : nil
    }
  }

  /// Words YAML reads as something other than a string (YAML 1.1's booleans included).
  private static let reserved: Set<String> = ["true", "false", "yes", "no", "on", "off", "y", "n", "null"]

  /// `text` plain when it is letters, digits and `_ . / -` (and inner spaces) starting with
  /// a letter, `_` or `/`, and no reserved word; double-quoted otherwise.
  static func string(_ text: String) -> String {
    func isPlain(_ byte: UInt8) -> Bool {
      switch byte {
      case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): return true
      case UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "/"), UInt8(ascii: "-"), UInt8(ascii: " "): return true
      default: return false
      }
    }
    let bytes = Array(text.utf8)
    if let first = bytes.first, let last = bytes.last,
      first == UInt8(ascii: "_") || first == UInt8(ascii: "/") || (first | 0x20 >= UInt8(ascii: "a") && first | 0x20 <= UInt8(ascii: "z")),
      last != UInt8(ascii: " "), bytes.allSatisfy(isPlain), !reserved.contains(text.lowercased())
    {
      return text
    }
    return JSONValue.string(text).jsonString
  }
}
