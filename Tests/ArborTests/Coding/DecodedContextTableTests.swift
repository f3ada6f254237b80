@testable import Arbor
import Testing

/// The table of one decode's contexts against a `Dictionary`, for the orders in which ids
/// come: in runs (one process's counter), several runs interleaved, differing only in
/// their high bits, and at random.
struct DecodedContextTableTests {
  enum Pattern: CaseIterable {
    case oneRun, twoRunsInterleaved, highBitsOnly, random

    /// The `index`th id of the pattern; all distinct.
    func id(_ index: Int) -> UInt64 {
      let index = UInt64(index)
      switch self {
      case .oneRun: return 0x7A3F_0000_0000_1000 &+ index
      case .twoRunsInterleaved: return index % 2 == 0 ? 0x1000 &+ index / 2 : 0x5_0000_1200 &+ index / 2
      case .highBitsOnly: return (index &+ 1) << 40
      case .random:
        var z = index &* 0x9E37_79B9_7F4A_7C15 &+ 0x1234_5678
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
      }
    }

    /// Whether the ids must make the table switch to Fibonacci hashing: one run never
    /// does, ids that differ only in their high bits always do (they share a home slot);
    /// for the others it depends on where they fall.
    var spreads: Bool? {
      switch self {
      case .oneRun: return false
      case .highBitsOnly: return true
      case .twoRunsInterleaved, .random: return nil
      }
    }
  }

  @Test(arguments: Pattern.allCases) func findsWhatADictionaryFinds(_ pattern: Pattern) {
    let table = DecodedContextTable()
    var expected: [ModelID: AnyModelContext] = [:]
    let count = 20_000
    for index in 0..<count {
      let id = ModelID(rawValue: pattern.id(index))
      // As a decode does: look up, then insert what was not there.
      #expect(table[id] == nil, "\(pattern): \(id) found before it was inserted")
      let context = AnyModelContext(id: id)
      table.insert(context)
      expected[id] = context
    }
    #expect(table.count == count)
    for (id, context) in expected {
      guard table[id] === context else {
        Issue.record("\(pattern): \(id) not found")
        return
      }
    }
    for index in count..<(count + 1_000) {
      #expect(table[ModelID(rawValue: pattern.id(index))] == nil)
    }
    if let spreads = pattern.spreads { #expect(table.spread == spreads, "\(pattern)") }
  }
}
