import Arbor
import ArborTesting
import IdentifiedCollections

// Models covering every shape a tree can take, for the patch exactness tests.

@Model struct Cell {
  var value = 0
  var tag = ""
}

@Model struct Shelf {
  var cells: [Cell] = []
  var extra: Cell? = nil
}

@ModelContainer enum Holder {
  case empty
  case one(Cell)
  case two(Cell, Cell)
}

@Model struct Warehouse {
  var shelves: [Shelf] = []
  var long: [Cell] = []
  var byKey: [String: Cell] = [:]
  var identified: IdentifiedArrayOf<Cell> = []
  var holder: Holder = .empty
  var page: Paginated<Cell> = Paginated(items: [], currentPage: 0)
  var spare: Cell? = nil
  var ratio = 0.0
  var note = ""
}

/// One random operation on a warehouse. Cells are created fresh or taken from anywhere
/// in the tree, so models end up shared between places, moved, removed and re-added.
func randomWarehouseStep(_ house: Warehouse, using random: inout SeededRandomNumberGenerator) {
  func pick(_ count: Int) -> Int? { count == 0 ? nil : Int.random(in: 0..<count, using: &random) }
  func fresh() -> Cell { Cell(value: Int.random(in: -9...9, using: &random), tag: ["", "x", "a/b", "~"].randomElement(using: &random)!) }
  /// Every cell reachable in the tree (shared ones more than once).
  func cells() -> [Cell] {
    var all = house.long + house.byKey.values + Array(house.identified) + house.page.items
    for shelf in house.shelves { all += shelf.cells + (shelf.extra.map { [$0] } ?? []) }
    if let spare = house.spare { all.append(spare) }
    switch house.holder {
    case .empty: break
    case .one(let cell): all.append(cell)
    case .two(let a, let b): all += [a, b]
    }
    return all
  }
  /// A fresh cell, or (half the time) one already in the tree: sharing.
  func anyCell() -> Cell {
    let existing = cells()
    if Bool.random(using: &random), let at = pick(existing.count) { return existing[at] }
    return fresh()
  }
  let key = ["k", "a/b", "~0", "z"].randomElement(using: &random)!

  switch Int.random(in: 0..<26, using: &random) {
  case 0: house.long.append(anyCell())
  case 1: if house.long.count > 260, let at = pick(house.long.count) { house.long.remove(at: at) }
  case 2: house.long.insert(anyCell(), at: Int.random(in: 0...house.long.count, using: &random))
  case 3:
    // An assigned copy with one element replaced and one appended.
    var copy = house.long
    if let at = pick(copy.count) { copy[at] = anyCell() }
    copy.append(fresh())
    house.long = copy
  case 4: if let at = pick(house.long.count) { house.long[at] = anyCell() }
  case 5: if house.long.count >= 2, let a = pick(house.long.count), let b = pick(house.long.count) { house.long.swapAt(a, b) }
  case 6:
    // Removed, then added again elsewhere in the same array.
    if let at = pick(house.long.count) {
      let cell = house.long.remove(at: at)
      house.long.insert(cell, at: Int.random(in: 0...house.long.count, using: &random))
    }
  case 7:
    // One in-place access that replaces in the middle and appends.
    if let at = pick(house.long.count) {
      let replacement = anyCell()
      let appended = fresh()
      mutate(&house.long) { $0[at] = replacement; $0.append(appended) }
    }
  case 8:
    if house.long.count > 300 { house.long.removeAll { $0.value == Int.random(in: -9...9, using: &random) } }
  case 9:
    let all = cells()
    if let at = pick(all.count) { all[at].value += Int.random(in: 1...5, using: &random) }
  case 10:
    let all = cells()
    if let at = pick(all.count) { all[at].tag = ["p", "q/r", "s~t"].randomElement(using: &random)! }
  case 11: house.byKey[key] = anyCell()
  case 12: house.byKey[key] = nil
  case 13: house.byKey[key]?.value += 1
  case 14: house.identified.append(fresh())
  case 15: if let at = pick(house.identified.count) { house.identified.remove(at: at) }
  case 16:
    switch Int.random(in: 0..<3, using: &random) {
    case 0: house.holder = .empty
    case 1: house.holder = .one(anyCell())
    default: house.holder = .two(anyCell(), anyCell())
    }
  case 17: house.page.items.append(anyCell())
  case 18: house.page.currentPage += 1
  case 19: if !house.page.items.isEmpty { house.page.items.removeFirst() }
  case 20: house.spare = Bool.random(using: &random) ? anyCell() : nil
  case 21: house.shelves.append(Shelf(cells: [fresh(), anyCell()]))
  case 22: if let at = pick(house.shelves.count) { house.shelves.remove(at: at) }
  case 23:
    if let at = pick(house.shelves.count) {
      let shelf = house.shelves[at]
      if Bool.random(using: &random) { shelf.cells.append(anyCell()) } else { shelf.extra = anyCell() }
    }
  case 24:
    house.node.transaction {
      let cell = fresh()
      house.long.append(cell)
      cell.value = 100
      house.byKey[key] = cell
      if let at = pick(house.long.count) { house.long.remove(at: at) }
      cell.tag = "after"
    }
  default:
    house.note = "n\(Int.random(in: 0..<100, using: &random))"
    house.ratio = Double(Int.random(in: 0..<8, using: &random)) / 4
  }
}

private func mutate<T>(_ value: inout T, _ body: (inout T) -> Void) { body(&value) }
