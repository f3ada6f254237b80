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
    var bytes: [UInt8] = []
    writeJSON(to: &bytes)
    return Data(bytes)
  }

  /// Appends the value as compact JSON text (UTF-8, keys sorted) to `bytes`.
  ///
  /// ```swift
  /// var line: [UInt8] = []
  /// JSONValue(["id": 1]).writeJSON(to: &line)
  /// line.append(0x0A)
  /// ```
  public func writeJSON(to bytes: inout [UInt8]) {
    JSONWriter.appending(to: &bytes) { $0.write(self) }
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
///
/// The text goes first into a chunk of memory on the stack, with no check but its room,
/// and from there into the array a kilobyte at a time: a value's many small pieces (a key,
/// a colon, a number) each cost a few stores, not an array append with its uniqueness and
/// capacity checks.
struct JSONWriter {
  /// The text written so far, less what is still in the chunk.
  private var bytes: [UInt8]
  private let chunk: UnsafeMutablePointer<UInt8>
  private let chunkSize: Int
  private var used = 0

  /// The size of the chunk: as large as `withUnsafeTemporaryAllocation` always takes from
  /// the stack (a larger one may take it from the heap, a malloc per value written).
  static let chunkCapacity = 1_024

  private init(bytes: [UInt8], chunk: UnsafeMutableBufferPointer<UInt8>) {
    self.bytes = bytes
    self.chunk = chunk.baseAddress!
    self.chunkSize = chunk.count
  }

  /// Runs `body` with a writer whose text is appended to `bytes`.
  static func appending(to bytes: inout [UInt8], _ body: (inout JSONWriter) -> Void) {
    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: chunkCapacity) { chunk in
      var writer = JSONWriter(bytes: bytes, chunk: chunk)
      bytes = []
      body(&writer)
      writer.flush()
      bytes = writer.bytes
    }
  }

  /// Moves what the chunk holds to the array.
  private mutating func flush() {
    guard used > 0 else { return }
    bytes.append(contentsOf: UnsafeBufferPointer(start: chunk, count: used))
    used = 0
  }

  @inline(__always)
  mutating func put(_ byte: UInt8) {
    if used == chunkSize { flush() }
    chunk[used] = byte
    used &+= 1
  }

  @inline(__always)
  mutating func put(_ text: UnsafeBufferPointer<UInt8>) {
    let count = text.count
    if count > chunkSize &- used {
      flush()
      if count > chunkSize {
        bytes.append(contentsOf: text)
        return
      }
    }
    if count > 0 { (chunk + used).update(from: text.baseAddress!, count: count) }
    used &+= count
  }

  mutating func put(_ text: [UInt8]) {
    text.withUnsafeBufferPointer { put($0) }
  }

  mutating func write(_ value: JSONValue) {
    switch value {
    case .null: append("null")
    case .bool(let flag): append(flag ? "true" : "false")
    case .int(let number): writeInteger(number)
    case .double(let number): writeDouble(number)
    case .string(let text): writeString(text)
    case .array(let elements):
      put(UInt8(ascii: "["))
      // Each element read in place from the array's storage: iterating the array would
      // copy it out, a retain and a release of what it holds.
      elements.withUnsafeBufferPointer { elements in
        for index in elements.indices {
          if index > 0 { put(UInt8(ascii: ",")) }
          write(elements[index])
        }
      }
      put(UInt8(ascii: "]"))
    case .object(let members):
      put(UInt8(ascii: "{"))
      // The members' positions are sorted by key in a buffer on the stack (for objects of
      // up to 32 members, that is almost all): no allocation and no hashing per object
      // written, and no key or value copied out of the dictionary (a retain and a release
      // each, and the copies' destruction: a third of the writer's time).
      let count = members.count
      if count <= 32 {
        withUnsafeTemporaryAllocation(of: [String: JSONValue].Index.self, capacity: count) { order in
          var filled = 0
          defer { order.baseAddress!.deinitialize(count: filled) }
          var position = members.startIndex
          while position != members.endIndex {
            // Insertion sort: a handful of members, mostly.
            order.initializeElement(at: filled, to: position)
            var slot = filled
            while slot > 0, members.keys[order[slot]] < members.keys[order[slot - 1]] {
              order.swapAt(slot, slot - 1)
              slot -= 1
            }
            filled += 1
            members.formIndex(after: &position)
          }
          for slot in 0..<filled {
            if slot > 0 { put(UInt8(ascii: ",")) }
            writeString(members.keys[order[slot]])
            put(UInt8(ascii: ":"))
            write(members.values[order[slot]])
          }
        }
      } else {
        var first = true
        for key in members.keys.sorted() {
          if !first { put(UInt8(ascii: ",")) }
          first = false
          writeString(key)
          put(UInt8(ascii: ":"))
          write(members[key]!)
        }
      }
      put(UInt8(ascii: "}"))
    }
  }

  private mutating func append(_ text: String) {
    var text = text
    text.withUTF8 { put($0) }
  }

  private mutating func writeDouble(_ number: Double) {
    // Integral values in the exactly representable range are written without ".0", as
    // JSONEncoder does; non-finite values never reach a JSONValue from our encoders.
    if number.rounded(.towardZero) == number, abs(number) < 1e15 {
      writeInteger(Int64(number))
    } else {
      append(number.description)
    }
  }

  /// An integer's decimal digits, written straight into the chunk (no `String` between).
  private mutating func writeInteger(_ number: Int64) {
    if number >= 0 && number < 10 {
      put(UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: number))
      return
    }
    if number < 0 { put(UInt8(ascii: "-")) }
    var magnitude = number.magnitude
    // 20 digits hold UInt64.max.
    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
      var first = 20
      while magnitude > 0 {
        first -= 1
        digits[first] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: magnitude % 10)
        magnitude /= 10
      }
      put(UnsafeBufferPointer(rebasing: digits[first...]))
    }
  }

  /// A JSON Pointer as a string (`"/rows/0"`), written token by token: no `String` of
  /// the whole pointer is built.
  mutating func writePointer(_ pointer: JSONPointer) {
    put(UInt8(ascii: "\""))
    for token in pointer.tokens {
      put(UInt8(ascii: "/"))
      var token = token
      // Almost every token needs no escape, of the pointer's or of JSON's: copied at once.
      let copied = token.withUTF8 { utf8 in
        for byte in utf8 where Self.needsEscape(byte) || byte == UInt8(ascii: "~") || byte == UInt8(ascii: "/") { return false }
        put(utf8)
        return true
      }
      if !copied { writeStringBody(JSONPointer.escaped(token)) }
    }
    put(UInt8(ascii: "\""))
  }

  mutating func writeString(_ text: String) {
    put(UInt8(ascii: "\""))
    writeStringBody(text)
    put(UInt8(ascii: "\""))
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
      // Almost every string needs no escape: copied at once, once a scan eight bytes at a
      // time found nothing to escape.
      guard let first = Self.firstEscaped(in: utf8) else {
        put(utf8)
        return
      }
      var start = 0
      for index in first..<utf8.count {
        let byte = utf8[index]
        guard Self.needsEscape(byte) else { continue }
        put(UnsafeBufferPointer(rebasing: utf8[start..<index]))
        put(UInt8(ascii: "\\"))
        switch byte {
        case UInt8(ascii: "\""): put(UInt8(ascii: "\""))
        case UInt8(ascii: "\\"): put(UInt8(ascii: "\\"))
        case 0x0A: put(UInt8(ascii: "n"))
        case 0x0D: put(UInt8(ascii: "r"))
        case 0x09: put(UInt8(ascii: "t"))
        case 0x08: put(UInt8(ascii: "b"))
        case 0x0C: put(UInt8(ascii: "f"))
        default:
          put([UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), .lowercaseHexDigit(byte >> 4), .lowercaseHexDigit(byte & 0xF)])
        }
        start = index + 1
      }
      put(UnsafeBufferPointer(rebasing: utf8[start..<utf8.count]))
    }
  }

  /// The index of the first byte of `utf8` written escaped, or nil: eight bytes at a time,
  /// each word tested at once for a byte below 0x20, a quote or a backslash.
  @inline(__always)
  static func firstEscaped(in utf8: UnsafeBufferPointer<UInt8>) -> Int? {
    let count = utf8.count
    var index = 0
    if count >= 8, let base = utf8.baseAddress {
      let raw = UnsafeRawPointer(base)
      let ones: UInt64 = 0x0101_0101_0101_0101
      let highs: UInt64 = 0x8080_8080_8080_8080
      while index &+ 8 <= count {
        let word = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: index, as: UInt64.self))
        // A byte is zero in `x` exactly when (x - 1) & ~x has its high bit (for bytes
        // below 0x80; a byte of 0x80 or more in `word` is never escaped, and is masked out).
        let control = (word &- ones &* 0x20) & ~word
        let quote = ((word ^ (ones &* 0x22)) &- ones) & ~(word ^ (ones &* 0x22))
        let backslash = ((word ^ (ones &* 0x5C)) &- ones) & ~(word ^ (ones &* 0x5C))
        if (control | quote | backslash) & highs != 0 { break }
        index &+= 8
      }
    }
    while index < count {
      if needsEscape(utf8[index]) { return index }
      index &+= 1
    }
    return nil
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
    JSONWriter.appending(to: &bytes) { $0.write(self) }
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
    put(UInt8(ascii: "["))
    for (index, operation) in patch.operations.enumerated() {
      if index > 0 { put(UInt8(ascii: ",")) }
      // `from` (a move's or a copy's), then `op` and `path`, then `value`: the writer's key order.
      let (head, from, value) = PatchOperationBytes.parts(of: operation)
      if let from {
        put(PatchOperationBytes.from)
        writePointer(from)
      }
      put(head)
      writePointer(operation.path)
      if let value {
        put(PatchOperationBytes.value)
        write(value)
      }
      put(UInt8(ascii: "}"))
    }
    put(UInt8(ascii: "]"))
  }
}
