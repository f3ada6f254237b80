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
    case .int(let number): append(String(number))
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
      // The keys are sorted in a buffer on the stack (for objects of up to 32 members, that
      // is almost all): no allocation per object written.
      let count = members.count
      if count <= 32 {
        withUnsafeTemporaryAllocation(of: String.self, capacity: count) { buffer in
          var keys = buffer
          _ = keys.initialize(fromContentsOf: members.keys)
          keys.sort()
          for index in 0..<count {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            writeString(keys[index])
            bytes.append(UInt8(ascii: ":"))
            write(members[keys[index]]!)
          }
          keys.deinitialize()
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

  mutating func writeString(_ text: String) {
    bytes.append(UInt8(ascii: "\""))
    var text = text
    text.withUTF8 { utf8 in
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
    bytes.append(UInt8(ascii: "\""))
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
    writeJSON(to: &bytes)
    return bytes
  }
}

extension JSONWriter {
  mutating func write(_ patch: JSONPatch) {
    bytes.append(UInt8(ascii: "["))
    for (index, operation) in patch.operations.enumerated() {
      if index > 0 { bytes.append(UInt8(ascii: ",")) }
      bytes.append(UInt8(ascii: "{"))
      if case .move(let from, _) = operation {
        member("from", first: true)
        writeString(from.description)
      } else if case .copy(let from, _) = operation {
        member("from", first: true)
        writeString(from.description)
      }
      let hasFrom: Bool
      switch operation {
      case .move, .copy: hasFrom = true
      default: hasFrom = false
      }
      member("op", first: !hasFrom)
      writeString(operation.op)
      member("path", first: false)
      writeString(operation.path.description)
      switch operation {
      case .add(_, let value), .replace(_, let value), .test(_, let value):
        member("value", first: false)
        write(value)
      case .remove, .move, .copy:
        break
      }
      bytes.append(UInt8(ascii: "}"))
    }
    bytes.append(UInt8(ascii: "]"))
  }

  private mutating func member(_ key: StaticString, first: Bool) {
    if !first { bytes.append(UInt8(ascii: ",")) }
    bytes.append(UInt8(ascii: "\""))
    key.withUTF8Buffer { bytes.append(contentsOf: $0) }
    bytes.append(contentsOf: [UInt8(ascii: "\""), UInt8(ascii: ":")])
  }
}
