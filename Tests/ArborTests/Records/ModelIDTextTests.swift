import Arbor
import Testing

/// A model id's text: 16 hexadecimal digits, in snapshots, patches and intent parameters.
@Suite struct ModelIDTextTests {
  @Test func anIDReadsBackFromItsText() {
    for raw: UInt64 in [0, 1, 0xA1, 0x9f3c_07a1_b2d4_0e15, .max, .max / 3] {
      let id = ModelID(rawValue: raw)
      #expect(id.description.utf8.count == 16)
      #expect(ModelID(id.description) == id, "\(id)")
    }
    #expect(ModelID(rawValue: 0xA1).description == "00000000000000a1")
    #expect(ModelID(rawValue: .max).description == "ffffffffffffffff")
  }

  @Test func upperCaseDigitsAreRead() {
    #expect(ModelID("9F3C07A1B2D40E15") == ModelID(rawValue: 0x9f3c_07a1_b2d4_0e15))
  }

  @Test func anythingButSixteenHexadecimalDigitsIsRefused() {
    for text in ["", "a1", "00000000000000a", "00000000000000a1f", "0000000000000xa1", "+00000000000000a",
      "-00000000000000a", " 00000000000000a", "00000000000000é", "0000000000000000000000000000000a"]
    {
      #expect(ModelID(text) == nil, "\(text)")
    }
    #expect(ModelID("x00000000000000a1".dropFirst()) == ModelID(rawValue: 0xA1), "a substring")
  }

  /// A `String` is read by its own initializer, anything else through `StringProtocol`: the
  /// two agree on every text.
  @Test func aStringAndASubstringReadTheSame() {
    for text in ["9f3c07a1b2d40e15", "9F3C07A1B2D40E15", "", "a1", "00000000000000a1f", "0000000000000xa1",
      "00000000000000é", "ffffffffffffffff"]
    {
      #expect(ModelID(Substring(text)) == ModelID(text), "\(text)")
    }
  }
}
