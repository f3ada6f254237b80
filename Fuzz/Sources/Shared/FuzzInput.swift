import ArborJSON

/// Stops the run when a property does not hold: the message goes to standard error and the
/// trap makes libFuzzer save the input that caused it (`crash-<sha1>`).
///
/// ```swift
/// check(reparsed == value, "the value does not read back as itself")
/// ```
func check(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String) {
  if !condition() { fatalError(message()) }
}

/// The canonical text of a value (compact, keys sorted): two values that print the same
/// bytes are the same JSON, and `1` and `1.0` stay apart as JSON Patch's `==` does not keep them.
func canonical(_ value: JSONValue) -> [UInt8] {
  var bytes: [UInt8] = []
  value.writeJSON(to: &bytes)
  return bytes
}

/// The input bytes libFuzzer hands over, copied into an array.
func inputBytes(_ data: UnsafePointer<UInt8>?, _ size: Int) -> [UInt8] {
  guard let data, size > 0 else { return [] }
  return Array(UnsafeBufferPointer(start: data, count: size))
}

/// Text for a message: the bytes as a Swift string literal would show them.
func show(_ bytes: [UInt8]) -> String {
  String(decoding: bytes, as: UTF8.self).debugDescription
}
