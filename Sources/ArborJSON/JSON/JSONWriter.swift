import Foundation

extension JSONValue {
  /// The value as compact JSON text (UTF-8), object keys sorted so that equal values give
  /// equal bytes. Integers are written exactly; other numbers in Swift's shortest form
  /// that reads back to the same `Double`. Slashes are not escaped.
  ///
  /// ```swift
  /// let data = JSONValue(["b": 1, "a": [true, nil]]).jsonData()   // {"a":[true,null],"b":1}
  /// ```
  public func jsonData() -> Data {
    var writer = JSONWriter()
    writer.write(self)
    return Data(writer.bytes)
  }

  /// Appends the value as compact JSON text (UTF-8, keys sorted) to `bytes`.
  ///
  /// ```swift
  /// var line: [UInt8] = []
  /// JSONValue(["id": 1]).writeJSON(to: &line)
  /// line.append(0x0A)
  /// ```
  public func writeJSON(to bytes: inout [UInt8]) {
    var writer = JSONWriter(bytes: bytes)
    bytes = []
    writer.write(self)
    bytes = writer.bytes
  }

  /// The value as one line of compact JSON text (keys sorted) ending in `\n`: how every
  /// message travels on the daemon's socket.
  ///
  /// ```swift
  /// let line = JSONValue(["id": 1]).jsonLine   // {"id":1}\n
  /// ```
  public var jsonLine: [UInt8] {
    var bytes: [UInt8] = []
    writeJSON(to: &bytes)
    bytes.append(0x0A)
    return bytes
  }

  /// The value as compact JSON text, keys sorted.
  ///
  /// ```swift
  /// print(JSONValue(["a": [1, nil]]).jsonString)   // {"a":[1,null]}
  /// ```
  public var jsonString: String {
    var bytes: [UInt8] = []
    writeJSON(to: &bytes)
    return String(decoding: bytes, as: UTF8.self)
  }
}

/// Writes JSON values as compact UTF-8 text.
struct JSONWriter {
  var bytes: [UInt8] = []

  init() { bytes.reserveCapacity(4_096) }

  init(bytes: [UInt8]) { self.bytes = bytes }

  mutating func write(_ value: JSONValue) {
    switch value {
    case .null: append("null")
    case .bool(let flag): append(flag ? "true" : "false")
    case .int(let number): writeInteger(number)
    case .double(let number): writeDouble(number)
    case .string(let text): writeString(text)
    case .array(let elements):
      bytes.append(UInt8(ascii: "["))
      for (index, element) in elements.enumerated() {
        if index > 0 { bytes.append(UInt8(ascii: ",")) }
        write(element)
      }
      bytes.append(UInt8(ascii: "]"))
    case .object(let members):
      bytes.append(UInt8(ascii: "{"))
      // The members' indices are sorted by key in a buffer on the stack (for objects of up
      // to 32 members, that is almost all): no allocation and no hashing per object written.
      let count = members.count
      if count <= 32 {
        withUnsafeTemporaryAllocation(of: Dictionary<String, JSONValue>.Index.self, capacity: count) { order in
          order.initialize(repeating: members.startIndex)
          defer { order.deinitialize() }
          var filled = 0
          var index = members.startIndex
          while index != members.endIndex {
            // Insertion sort: a handful of members, mostly.
            var slot = filled
            let key = members[index].key
            while slot > 0, key < members[order[slot - 1]].key {
              order[slot] = order[slot - 1]
              slot -= 1
            }
            order[slot] = index
            filled += 1
            members.formIndex(after: &index)
          }
          for position in 0..<count {
            if position > 0 { bytes.append(UInt8(ascii: ",")) }
            let member = members[order[position]]
            writeString(member.key)
            bytes.append(UInt8(ascii: ":"))
            write(member.value)
          }
        }
      } else {
        for (index, key) in members.keys.sorted().enumerated() {
          if index > 0 { bytes.append(UInt8(ascii: ",")) }
          writeString(key)
          bytes.append(UInt8(ascii: ":"))
          write(members[key]!)
        }
      }
      bytes.append(UInt8(ascii: "}"))
    }
  }

  private mutating func append(_ text: String) {
    var text = text
    text.withUTF8 { bytes.append(contentsOf: $0) }
  }

  private mutating func writeDouble(_ number: Double) {
    // Integral values in the exactly representable range are written without ".0", as
    // JSONEncoder does; non-finite values never reach a JSONValue from our encoders.
    if number.rounded(.towardZero) == number, abs(number) < 1e15 {
      append(String(Int64(number)))
    } else {
      append(number.description)
    }
  }

  /// An integer's decimal digits, written straight into the bytes (no `String` between).
  private mutating func writeInteger(_ number: Int64) {
    guard number != 0 else {
      bytes.append(UInt8(ascii: "0"))
      return
    }
    if number < 0 { bytes.append(UInt8(ascii: "-")) }
    var magnitude = number.magnitude
    // 20 digits hold UInt64.max.
    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
      var first = 20
      while magnitude > 0 {
        first -= 1
        digits[first] = UInt8(ascii: "0") + UInt8(magnitude % 10)
        magnitude /= 10
      }
      bytes.append(contentsOf: UnsafeBufferPointer(rebasing: digits[first...]))
    }
  }

  /// A JSON Pointer as a string (`"/rows/0"`), written token by token: no `String` of
  /// the whole pointer is built.
  mutating func writePointer(_ pointer: JSONPointer) {
    bytes.append(UInt8(ascii: "\""))
    for token in pointer.tokens {
      bytes.append(UInt8(ascii: "/"))
      var token = token
      // Almost every token needs no escape, of the pointer's or of JSON's: copied at once.
      let copied = token.withUTF8 { utf8 in
        for byte in utf8 where Self.needsEscape(byte) || byte == UInt8(ascii: "~") || byte == UInt8(ascii: "/") { return false }
        bytes.append(contentsOf: utf8)
        return true
      }
      if !copied { writeStringBody(JSONPointer.escaped(token)) }
    }
    bytes.append(UInt8(ascii: "\""))
  }

  mutating func writeString(_ text: String) {
    bytes.append(UInt8(ascii: "\""))
    writeStringBody(text)
    bytes.append(UInt8(ascii: "\""))
  }

  /// Whether a byte of a string is written escaped: a control character, a quote, a backslash.
  @inline(__always)
  private static func needsEscape(_ byte: UInt8) -> Bool {
    byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
  }

  /// A string's characters, escaped, without the quotes around them.
  private mutating func writeStringBody(_ text: String) {
    var text = text
    text.withUTF8 { utf8 in
      // Almost every string needs no escape: copied at once.
      var plain = true
      for byte in utf8 where Self.needsEscape(byte) {
        plain = false
        break
      }
      if plain {
        bytes.append(contentsOf: utf8)
        return
      }
      var start = 0
      for index in 0..<utf8.count {
        let byte = utf8[index]
        guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
        bytes.append(contentsOf: utf8[start..<index])
        bytes.append(UInt8(ascii: "\\"))
        switch byte {
        case UInt8(ascii: "\""): bytes.append(UInt8(ascii: "\""))
        case UInt8(ascii: "\\"): bytes.append(UInt8(ascii: "\\"))
        case 0x0A: bytes.append(UInt8(ascii: "n"))
        case 0x0D: bytes.append(UInt8(ascii: "r"))
        case 0x09: bytes.append(UInt8(ascii: "t"))
        case 0x08: bytes.append(UInt8(ascii: "b"))
        case 0x0C: bytes.append(UInt8(ascii: "f"))
        default:
          let hex = Array("0123456789abcdef".utf8)
          bytes.append(contentsOf: [UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
        }
        start = index + 1
      }
      bytes.append(contentsOf: utf8[start..<utf8.count])
    }
  }
}

extension JSONPatch {
  /// Appends the patch as compact JSON text (RFC 6902, each operation's keys sorted, as
  /// its `Codable` form gives), written directly: no encoder in between.
  ///
  /// ```swift
  /// var bytes: [UInt8] = []
  /// JSONPatch([.replace(try JSONPointer("/count"), 2)]).writeJSON(to: &bytes)
  /// // [{"op":"replace","path":"/count","value":2}]
  /// ```
  public func writeJSON(to bytes: inout [UInt8]) {
    var writer = JSONWriter(bytes: bytes)
    bytes = []
    writer.write(self)
    bytes = writer.bytes
  }

  /// The patch as compact JSON text.
  public var jsonBytes: [UInt8] {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(128)
    writeJSON(to: &bytes)
    return bytes
  }
}

/// The fixed parts of a patch operation's object, in the order the writer sorts its keys
/// (`from`, `op`, `path`, `value`), each spelled once.
private enum PatchOperationBytes {
  static let add = Array(#"{"op":"add","path":"#.utf8)
  static let remove = Array(#"{"op":"remove","path":"#.utf8)
  static let replace = Array(#"{"op":"replace","path":"#.utf8)
  static let test = Array(#"{"op":"test","path":"#.utf8)
  static let from = Array(#"{"from":"#.utf8)
  static let move = Array(#","op":"move","path":"#.utf8)
  static let copy = Array(#","op":"copy","path":"#.utf8)
  static let value = Array(#","value":"#.utf8)

  /// The bytes up to the operation's path, and the members around it it has.
  static func parts(of operation: JSONPatchOperation) -> (head: [UInt8], from: JSONPointer?, value: JSONValue?) {
    switch operation {
    case .add(_, let value): return (add, nil, value)
    case .remove: return (remove, nil, nil)
    case .replace(_, let value): return (replace, nil, value)
    case .test(_, let value): return (test, nil, value)
    case .move(let from, _): return (move, from, nil)
    case .copy(let from, _): return (copy, from, nil)
    }
  }
}

extension JSONWriter {
  mutating func write(_ patch: JSONPatch) {
    bytes.append(UInt8(ascii: "["))
    for (index, operation) in patch.operations.enumerated() {
      if index > 0 { bytes.append(UInt8(ascii: ",")) }
      // `from` (a move's or a copy's), then `op` and `path`, then `value`: the writer's key order.
      let (head, from, value) = PatchOperationBytes.parts(of: operation)
      if let from {
        bytes.append(contentsOf: PatchOperationBytes.from)
        writePointer(from)
      }
      bytes.append(contentsOf: head)
      writePointer(operation.path)
      if let value {
        bytes.append(contentsOf: PatchOperationBytes.value)
        write(value)
      }
      bytes.append(UInt8(ascii: "}"))
    }
    bytes.append(UInt8(ascii: "]"))
  }
}
