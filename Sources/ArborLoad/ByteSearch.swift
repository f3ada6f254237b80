extension Collection<UInt8> {
  /// Whether the bytes contain `needle` (short lines: a plain scan is enough).
  func contains(bytes needle: [UInt8]) -> Bool {
    firstOffset(of: needle) != nil
  }

  /// How far from the start `needle` first occurs, if it does.
  func firstOffset(of needle: [UInt8]) -> Int? {
    guard let first = needle.first else { return 0 }
    var index = startIndex
    var offset = 0
    while index != endIndex {
      if self[index] == first, self[index...].starts(with: needle) { return offset }
      formIndex(after: &index)
      offset += 1
    }
    return nil
  }
}
