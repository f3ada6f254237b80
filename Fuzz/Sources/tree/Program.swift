import Arbor
import Foundation
import IdentifiedCollections

/// The fuzzed program that changes the tree: one byte picks a step, the next bytes its
/// operands. Steps write every property of every shape; cells are made fresh or taken from
/// anywhere in the tree, so models end up shared between places, moved, removed and added
/// again (the moves of `randomWarehouseStep` in the runtime's tests, and more).
struct Program {
  private var bytes: ArraySlice<UInt8>
  let house: Warehouse
  /// Transactions open (a step inside one does not open another deeper than 3).
  private var depth = 0

  init(bytes: ArraySlice<UInt8>, house: Warehouse) {
    self.bytes = bytes
    self.house = house
  }

  /// The next byte; 0 once the input is used up.
  private mutating func byte() -> UInt8 { bytes.popFirst() ?? 0 }

  private mutating func pick(_ count: Int) -> Int? { count == 0 ? nil : Int(byte()) % count }

  /// An integer: small most of the time, the extremes and raw 64 bits sometimes.
  private mutating func integer() -> Int {
    let first = byte()
    switch first {
    case 0xFF: return Int.max
    case 0xFE: return Int.min
    case 0xFD:
      var value: UInt64 = 0
      for _ in 0..<8 { value = value << 8 | UInt64(byte()) }
      return Int(truncatingIfNeeded: value)
    default: return Int(Int8(bitPattern: first))
    }
  }

  /// A double from raw bits (NaN, infinities, -0 and subnormals included) or a small one.
  private mutating func double() -> Double {
    guard byte() & 1 == 1 else { return Double(Int8(bitPattern: byte())) / 4 }
    var bits: UInt64 = 0
    for _ in 0..<8 { bits = bits << 8 | UInt64(byte()) }
    return Double(bitPattern: bits)
  }

  private static let words = [
    "", "x", "k", "z", "a/b", "~", "~0", "~1", "/", "-", "0", "01", "é", "e\u{301}", "\"", "\\", "\n", "\u{1}arbor.model",
    "\u{0}", "id", "value", "tag", "🌲",
  ]

  /// A key or a tag: one of the words above, or up to 7 bytes of the input.
  private mutating func word() -> String {
    let choice = byte()
    if Int(choice) < Self.words.count { return Self.words[Int(choice)] }
    let length = Int(choice % 8)
    var raw: [UInt8] = []
    for _ in 0..<length { raw.append(byte()) }
    return String(decoding: raw, as: UTF8.self)
  }

  private mutating func fresh() -> Cell { Cell(value: integer(), tag: word()) }

  /// Every cell reachable in the tree (shared ones more than once).
  private func cells() -> [Cell] {
    var all = house.long + house.byKey.values + Array(house.identified) + house.page.items
    for shelf in house.shelves { all += shelf.cells + (shelf.extra.map { [$0] } ?? []) }
    for row in house.grid { all += row }
    if let spare = house.spare { all.append(spare) }
    switch house.holder {
    case .empty: break
    case .one(let cell): all.append(cell)
    case .two(let a, let b): all += [a, b]
    }
    return all
  }

  /// A fresh cell, or (an odd byte) one already in the tree: sharing.
  private mutating func anyCell() -> Cell {
    if byte() & 1 == 1 {
      let existing = cells()
      if let at = pick(existing.count) { return existing[at] }
    }
    return fresh()
  }

  /// Runs one step; nil once the input is used up. Returns what it did, for messages.
  mutating func step() -> String? {
    guard let choice = bytes.popFirst() else { return nil }
    let house = self.house
    switch choice % 36 {
    case 0:
      guard house.long.count < 40 else { return "long is full" }
      house.long.append(anyCell())
      return "long.append"
    case 1:
      guard let at = pick(house.long.count) else { return "long is empty" }
      house.long.remove(at: at)
      return "long.remove(at: \(at))"
    case 2:
      let at = Int(byte()) % (house.long.count + 1)
      house.long.insert(anyCell(), at: at)
      return "long.insert(at: \(at))"
    case 3:
      var copy = house.long
      if let at = pick(copy.count) { copy[at] = anyCell() }
      copy.append(fresh())
      house.long = copy
      return "long = a copy with one replaced and one appended"
    case 4:
      guard let at = pick(house.long.count) else { return "long is empty" }
      house.long[at] = anyCell()
      return "long[\(at)] = a cell"
    case 5:
      guard let a = pick(house.long.count), let b = pick(house.long.count) else { return "long is empty" }
      house.long.swapAt(a, b)
      return "long.swapAt(\(a), \(b))"
    case 6:
      guard let at = pick(house.long.count) else { return "long is empty" }
      let cell = house.long.remove(at: at)
      let to = Int(byte()) % (house.long.count + 1)
      house.long.insert(cell, at: to)
      return "long: moved \(at) to \(to)"
    case 7:
      guard let at = pick(house.long.count) else { return "long is empty" }
      let replacement = anyCell()
      let appended = fresh()
      mutate(&house.long) {
        $0[at] = replacement
        $0.append(appended)
      }
      return "long: in one access, [\(at)] replaced and one appended"
    case 8:
      let value = integer()
      house.long.removeAll { $0.value == value }
      return "long.removeAll(value == \(value))"
    case 9:
      let all = cells()
      guard let at = pick(all.count) else { return "no cell" }
      let value = integer()
      all[at].value = value
      return "a cell's value = \(value)"
    case 10:
      let all = cells()
      guard let at = pick(all.count) else { return "no cell" }
      let tag = word()
      all[at].tag = tag
      return "a cell's tag = \(tag.debugDescription)"
    case 11:
      let key = word()
      house.byKey[key] = anyCell()
      return "byKey[\(key.debugDescription)] = a cell"
    case 12:
      let key = word()
      house.byKey[key] = nil
      return "byKey[\(key.debugDescription)] = nil"
    case 13:
      let key = word()
      house.byKey[key]?.value &+= 1
      return "byKey[\(key.debugDescription)]?.value += 1"
    case 14:
      house.identified.append(fresh())
      return "identified.append"
    case 15:
      guard let at = pick(house.identified.count) else { return "identified is empty" }
      house.identified.remove(at: at)
      return "identified.remove(at: \(at))"
    case 16:
      switch byte() % 3 {
      case 0: house.holder = .empty
      case 1: house.holder = .one(anyCell())
      default: house.holder = .two(anyCell(), anyCell())
      }
      return "holder = …"
    case 17:
      house.page.items.append(anyCell())
      return "page.items.append"
    case 18:
      let page = integer()
      house.page.currentPage = page
      return "page.currentPage = \(page)"
    case 19:
      guard !house.page.items.isEmpty else { return "page is empty" }
      house.page.items.removeFirst()
      return "page.items.removeFirst"
    case 20:
      house.spare = byte() & 1 == 1 ? anyCell() : nil
      return "spare = …"
    case 21:
      guard house.shelves.count < 8 else { return "shelves are full" }
      house.shelves.append(Shelf(cells: [fresh(), anyCell()]))
      return "shelves.append"
    case 22:
      guard let at = pick(house.shelves.count) else { return "no shelf" }
      house.shelves.remove(at: at)
      return "shelves.remove(at: \(at))"
    case 23:
      guard let at = pick(house.shelves.count) else { return "no shelf" }
      let shelf = house.shelves[at]
      if byte() & 1 == 1 {
        shelf.cells.append(anyCell())
        return "shelves[\(at)].cells.append"
      }
      shelf.extra = byte() & 1 == 1 ? anyCell() : nil
      return "shelves[\(at)].extra = …"
    case 24:
      // Several steps as one revision.
      guard depth < 3 else { return "no deeper transaction" }
      let count = Int(byte() % 6) + 1
      var done: [String] = []
      depth += 1
      house.node.transaction {
        for _ in 0..<count {
          guard let inner = self.step() else { break }
          done.append(inner)
        }
      }
      depth -= 1
      return "a transaction of [\(done.joined(separator: "; "))]"
    case 25:
      let note = word()
      house.note = note
      return "note = \(note.debugDescription)"
    case 26:
      let ratio = double()
      house.ratio = ratio
      return "ratio = \(ratio) (bits \(String(ratio.bitPattern, radix: 16)))"
    case 27:
      // A permutation of the array, assigned whole: reconciled by identity.
      var copy = house.long
      for index in copy.indices.reversed() where index > 0 {
        copy.swapAt(index, Int(byte()) % (index + 1))
      }
      if byte() & 1 == 1, !copy.isEmpty { copy.removeLast() }
      house.long = copy
      return "long = a permutation"
    case 28:
      // A new dictionary from cells of the tree and fresh ones.
      var dictionary: [String: Cell] = [:]
      for _ in 0..<Int(byte() % 4) { dictionary[word()] = anyCell() }
      house.byKey = dictionary
      return "byKey = [\(dictionary.keys.map(\.debugDescription).sorted().joined(separator: ", "))]"
    case 29:
      guard let a = pick(house.shelves.count), let b = pick(house.shelves.count) else { return "no shelf" }
      house.shelves[a].cells = house.shelves[b].cells
      return "shelves[\(a)].cells = shelves[\(b)].cells"
    case 30:
      let cell = anyCell()
      house.holder = .two(cell, cell)
      return "holder = .two(the same cell twice)"
    case 31:
      guard house.grid.count < 6 else { return "grid is full" }
      var row: [Cell] = []
      for _ in 0..<Int(byte() % 3) { row.append(anyCell()) }
      house.grid.append(row)
      return "grid.append(a row of \(row.count))"
    case 32:
      guard let at = pick(house.grid.count) else { return "grid is empty" }
      if byte() & 1 == 1 {
        house.grid[at].append(anyCell())
        return "grid[\(at)].append"
      }
      guard !house.grid[at].isEmpty else { return "grid[\(at)] is empty" }
      house.grid[at].remove(at: Int(byte()) % house.grid[at].count)
      return "grid[\(at)].remove"
    case 33:
      guard let at = pick(house.grid.count) else { return "grid is empty" }
      house.grid.remove(at: at)
      return "grid.remove(at: \(at))"
    case 34:
      // A whole identified array: reordered, one left out, one fresh.
      var elements = Array(house.identified)
      elements.reverse()
      if byte() & 1 == 1, !elements.isEmpty { elements.removeFirst() }
      if byte() & 1 == 1 { elements.append(fresh()) }
      house.identified = IdentifiedArrayOf(uniqueElements: elements)
      return "identified = reordered"
    default:
      house.page = Paginated(items: [anyCell(), anyCell()], currentPage: integer())
      return "page = a new page"
    }
  }
}

private func mutate<T>(_ value: inout T, _ body: (inout T) -> Void) { body(&value) }
