/// Stops the run when a property does not hold: the message goes to standard error and the
/// trap makes libFuzzer save the input that caused it (`crash-<sha1>`).
///
/// ```swift
/// check(frames == expected, "the decoder gave other frames")
/// ```
public func check(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String) {
  if !condition() { fatalError(message()) }
}

/// The input bytes libFuzzer hands over, copied into an array.
public func inputBytes(_ data: UnsafePointer<UInt8>?, _ size: Int) -> [UInt8] {
  guard let data, size > 0 else { return [] }
  return Array(UnsafeBufferPointer(start: data, count: size))
}

/// Text for a message: the bytes as a Swift string literal would show them.
public func show<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> String {
  String(decoding: bytes, as: UTF8.self).debugDescription
}
