/// Hexadecimal digits as bytes, read and written: `\u` escapes in JSON text, and a model
/// id's sixteen digits.
///
/// ```swift
/// UInt8(ascii: "f").hexDigitValue      // 15
/// UInt8.lowercaseHexDigit(10)           // UInt8(ascii: "a")
/// ```
extension UInt8 {
  /// The value of this byte as a hexadecimal digit (either case), or nil.
  @inlinable
  package var hexDigitValue: UInt8? {
    switch self {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): return self &- UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): return self &- UInt8(ascii: "a") &+ 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): return self &- UInt8(ascii: "A") &+ 10
    default: return nil
    }
  }

  /// The lower-case digit of `nibble` (0 to 15).
  @inlinable
  package static func lowercaseHexDigit(_ nibble: UInt8) -> UInt8 {
    nibble < 10 ? UInt8(ascii: "0") &+ nibble : UInt8(ascii: "a") &+ nibble &- 10
  }
}
