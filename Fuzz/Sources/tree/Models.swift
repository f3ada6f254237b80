// The models of the tree target, as the @Model and @ModelContainer macros expand them (the
// fuzz build has no macro plugin, so no swift-syntax): every shape of the runtime's patch
// tests (`Tests/ArborTests/Changes/PatchShapes.swift`), and an array of arrays. Written by
// expanding, with the main build's plugin (`swiftc -typecheck -load-plugin-executable
// .build/debug/ArborMacros-tool#ArborMacros -Xfrontend -dump-macro-expansions`, with
// `-I .build/debug/Modules` and the build's module maps), these declarations:
//
//   @Model struct Cell {
//     var value = 0
//     var tag = ""
//   }
//
//   @Model struct Shelf {
//     var cells: [Cell] = []
//     var extra: Cell? = nil
//   }
//
//   @ModelContainer enum Holder {
//     case empty
//     case one(Cell)
//     case two(Cell, Cell)
//   }
//
//   @ModelContainer struct Paginated<Item: Model> {
//     var items: [Item]
//     var currentPage: Int
//   }
//
//   @Model struct Warehouse {
//     var shelves: [Shelf] = []
//     var long: [Cell] = []
//     var byKey: [String: Cell] = [:]
//     var identified: IdentifiedArrayOf<Cell> = []
//     var holder: Holder = .empty
//     var page: Paginated<Cell> = Paginated(items: [], currentPage: 0)
//     var grid: [[Cell]] = []
//     var spare: Cell? = nil
//     var ratio = 0.0
//     var note = ""
//   }
//
// After a change to what the macros generate, expand them again (Docs/Testing.md, "Fuzzing").

import Arbor
import IdentifiedCollections

extension Warehouse {
  /// The tree every input starts from: something at each watched path, a model shared
  /// between places.
  static func initial() -> Warehouse {
    let shared = Cell(value: 1, tag: "shared")
    return Warehouse(
      shelves: [Shelf(cells: [Cell(value: 2, tag: "a/b"), shared], extra: Cell(value: 3))],
      long: [shared, Cell(value: 4, tag: "~"), Cell(value: 5)],
      byKey: ["k": Cell(value: 6, tag: "k"), "a/b": shared],
      identified: [Cell(value: 7)],
      holder: .one(shared),
      page: Paginated(items: [Cell(value: 8)], currentPage: 1),
      grid: [[Cell(value: 9)], []],
      ratio: 0.5,
      note: "n")
  }
}

struct Cell {
  var value: Int = 0 {
      @storageRestrictions(accesses: _$modelContext)
      init(initialValue) {
        _$modelContext._$initialize {
            $0.value = initialValue
        }
      }
      get {
        _$modelContext._$get(0) {
            $0.value
        }
      }
      nonmutating set {
        _$modelContext._$set(0, newValue, {
                $0.value
            }, {
                $0.value = $1
            })
      }
      nonmutating _modify {
        var access = _$modelContext._$beginModify(0) {
            $0.value.take()
        }
        defer {
          _$modelContext._$endModify(0, &access) {
              $0.value = $1
          }
        }
        yield &access.value
      }
  }

  var tag: String = "" {
      @storageRestrictions(accesses: _$modelContext)
      init(initialValue) {
        _$modelContext._$initialize {
            $0.tag = initialValue
        }
      }
      get {
        _$modelContext._$get(1) {
            $0.tag
        }
      }
      nonmutating set {
        _$modelContext._$set(1, newValue, {
                $0.tag
            }, {
                $0.tag = $1
            })
      }
      nonmutating _modify {
        var access = _$modelContext._$beginModify(1) {
            $0.tag.take()
        }
        defer {
          _$modelContext._$endModify(1, &access) {
              $0.tag = $1
          }
        }
        yield &access.value
      }
  }

  var _$modelContext = Arbor.ModelContext<Self>()

  func _$withContext(_ context: Arbor.ModelContext<Self>) -> Self {
    var copy = self
    copy._$modelContext = context
    return copy
  }

  init(value: Int = 0, tag: String = "") {
    self.value = value
    self.tag = tag
  }

  struct _$State: Sendable {
    var value = Arbor._$uninitialized {
        0
    }
    var tag = Arbor._$uninitialized {
        ""
    }
    init() {
    }
  }

  static func _$emptyState() -> _$State {
      _$State()
  }

  static var _$typeName: String {
      "Cell"
  }

  static var _$propertyCount: Int {
      2
  }

  static func _$propertyName(_ index: Int) -> String {
    switch index {
    case 0:
        return "value"
    case 1:
        return "tag"
    default:
        return "#\(index)"
    }
  }

  static func _$visit(_ state: _$State, property: Int, into visitor: inout Arbor.ModelVisitor) {
    switch property {
    case 0:
        break
    case 1:
        break
    default:
        break
    }
  }

  static func _$propertyIndex(of keyPath: PartialKeyPath<Self>) -> Int? {
    if keyPath == \Self.value {
        return 0
    }
    if keyPath == \Self.tag {
        return 1
    }
    return nil
  }

  var id: Arbor.ModelID {
      _$modelContext.id
  }

  static func _$stateSchema(in definitions: inout Arbor._JSONSchemaDefinitions) -> Arbor._JSONSchema {
    var schema = Arbor._StateSchema()
    schema.addID()
    schema.add("value", \_$State.value, hasDefault: true, in: &definitions)
    schema.add("tag", \_$State.tag, hasDefault: true, in: &definitions)
    return schema.build()
  }

  func encode(to encoder: any Encoder) throws {
    var container = Arbor._StateEncodingContainer(encoder)
    try container.encodeID(_$modelContext.id)
    let state = _$modelContext._$stateForEncoding()
    try container.encode(state.value, forKey: "value")
    try container.encode(state.tag, forKey: "tag")
  }

  init(from decoder: any Decoder) throws {
    let container = try Arbor._StateDecodingContainer(decoder)
    var state = _$State()
    state.value = try container.decode(state.value, forKey: "value", default: {
            0
        })
    state.tag = try container.decode(state.tag, forKey: "tag", default: {
            ""
        })
    let context = try container.context(Self.self, state: state, decodesID: true)
    self.init(_$restoring: context)
  }

  private init(_$restoring context: Arbor.ModelContext<Self>) {
    self._$modelContext = context
  }
}

extension Cell: Arbor.Model {
}

struct Shelf {
  var cells: [Cell] = [] {
      @storageRestrictions(accesses: _$modelContext)
      init(initialValue) {
        _$modelContext._$initialize {
            $0.cells = initialValue
        }
      }
      get {
        _$modelContext._$get(0) {
            $0.cells
        }
      }
      nonmutating set {
        _$modelContext._$set(0, newValue, {
                $0.cells
            }, {
                $0.cells = $1
            })
      }
      nonmutating _modify {
        var access = _$modelContext._$beginModify(0) {
            $0.cells.take()
        }
        defer {
          _$modelContext._$endModify(0, &access) {
              $0.cells = $1
          }
        }
        yield &access.value
      }
  }

  var extra: Cell? = nil {
      @storageRestrictions(accesses: _$modelContext)
      init(initialValue) {
        _$modelContext._$initialize {
            $0.extra = initialValue
        }
      }
      get {
        _$modelContext._$get(1) {
            $0.extra
        }
      }
      nonmutating set {
        _$modelContext._$set(1, newValue, {
                $0.extra
            }, {
                $0.extra = $1
            })
      }
      nonmutating _modify {
        var access = _$modelContext._$beginModify(1) {
            $0.extra.take()
        }
        defer {
          _$modelContext._$endModify(1, &access) {
              $0.extra = $1
          }
        }
        yield &access.value
      }
  }

  var _$modelContext = Arbor.ModelContext<Self>()

  func _$withContext(_ context: Arbor.ModelContext<Self>) -> Self {
    var copy = self
    copy._$modelContext = context
    return copy
  }

  init(cells: [Cell] = [], extra: Cell? = nil) {
    self.cells = cells
    self.extra = extra
  }

  struct _$State: Sendable {
    var cells: Optional<[Cell]> = nil
    var extra: Optional<Cell?> = nil
    init() {
    }
  }

  static func _$emptyState() -> _$State {
      _$State()
  }

  static var _$typeName: String {
      "Shelf"
  }

  static var _$propertyCount: Int {
      2
  }

  static func _$propertyName(_ index: Int) -> String {
    switch index {
    case 0:
        return "cells"
    case 1:
        return "extra"
    default:
        return "#\(index)"
    }
  }

  static func _$visit(_ state: _$State, property: Int, into visitor: inout Arbor.ModelVisitor) {
    switch property {
    case 0:
        visitor.visit(state.cells)
    case 1:
        visitor.visit(state.extra)
    default:
        break
    }
  }

  static func _$propertyIndex(of keyPath: PartialKeyPath<Self>) -> Int? {
    if keyPath == \Self.cells {
        return 0
    }
    if keyPath == \Self.extra {
        return 1
    }
    return nil
  }

  var id: Arbor.ModelID {
      _$modelContext.id
  }

  static func _$stateSchema(in definitions: inout Arbor._JSONSchemaDefinitions) -> Arbor._JSONSchema {
    var schema = Arbor._StateSchema()
    schema.addID()
    schema.add("cells", \_$State.cells, hasDefault: true, in: &definitions)
    schema.add("extra", \_$State.extra, hasDefault: true, in: &definitions)
    return schema.build()
  }

  func encode(to encoder: any Encoder) throws {
    var container = Arbor._StateEncodingContainer(encoder)
    try container.encodeID(_$modelContext.id)
    let state = _$modelContext._$stateForEncoding()
    try container.encode(state.cells, forKey: "cells")
    try container.encode(state.extra, forKey: "extra")
  }

  init(from decoder: any Decoder) throws {
    let container = try Arbor._StateDecodingContainer(decoder)
    var state = _$State()
    state.cells = try container.decode(state.cells, forKey: "cells", default: {
            []
        })
    state.extra = try container.decode(state.extra, forKey: "extra", default: {
            nil
        })
    let context = try container.context(Self.self, state: state, decodesID: true)
    self.init(_$restoring: context)
  }

  private init(_$restoring context: Arbor.ModelContext<Self>) {
    self._$modelContext = context
  }
}

extension Shelf: Arbor.Model {
}

struct Warehouse {
  var shelves: [Shelf] = [] {
      @storageRestrictions(accesses: _$modelContext)
      init(initialValue) {
        _$modelContext._$initialize {
            $0.shelves = initialValue
        }
      }
      get {
        _$modelContext._$get(0) {
            $0.shelves
        }
      }
      nonmutating set {
        _$modelContext._$set(0, newValue, {
                $0.shelves
            }, {
                $0.shelves = $1
            })
      }
      nonmutating _modify {
        var access = _$modelContext._$beginModify(0) {
            $0.shelves.take()
        }
        defer {
          _$modelContext._$endModify(0, &access) {
              $0.shelves = $1
          }
        }
        yield &access.value
      }
  }

  var long: [Cell] = [] {
      @storageRestrictions(accesses: _$modelContext)
      init(initialValue) {
        _$modelContext._$initialize {
            $0.long = initialValue
        }
      }
      get {
        _$modelContext._$get(1) {
            $0.long
        }
      }
      nonmutating set {
        _$modelContext._$set(1, newValue, {
                $0.long
            }, {
                $0.long = $1
            })
      }
      nonmutating _modify {
        var access = _$modelContext._$beginModify(1) {
            $0.long.take()
        }
        defer {
          _$modelContext._$endModify(1, &access) {
              $0.long = $1
          }
        }
        yield &access.value
      }
  }

  var byKey: [String: Cell] = [:] {
      @storageRestrictions(accesses: _$modelContext)
      init(initialValue) {
        _$modelContext._$initialize {
            $0.byKey = initialValue
        }
      }
      get {
        _$modelContext._$get(2) {
            $0.byKey
        }
      }
      nonmutating set {
        _$modelContext._$set(2, newValue, {
                $0.byKey
            }, {
                $0.byKey = $1
            })
      }
      nonmutating _modify {
        var access = _$modelContext._$beginModify(2) {
            $0.byKey.take()
        }
        defer {
          _$modelContext._$endModify(2, &access) {
              $0.byKey = $1
          }
        }
        yield &access.value
      }
  }

  var identified: IdentifiedArrayOf<Cell> = [] {
      @storageRestrictions(accesses: _$modelContext)
      init(initialValue) {
        _$modelContext._$initialize {
            $0.identified = initialValue
        }
      }
      get {
        _$modelContext._$get(3) {
            $0.identified
        }
      }
      nonmutating set {
        _$modelContext._$set(3, newValue, {
                $0.identified
            }, {
                $0.identified = $1
            })
      }
      nonmutating _modify {
        var access = _$modelContext._$beginModify(3) {
            $0.identified.take()
        }
        defer {
          _$modelContext._$endModify(3, &access) {
              $0.identified = $1
          }
        }
        yield &access.value
      }
  }

  var holder: Holder = .empty {
      @storageRestrictions(accesses: _$modelContext)
      init(initialValue) {
        _$modelContext._$initialize {
            $0.holder = initialValue
        }
      }
      get {
        _$modelContext._$get(4) {
            $0.holder
        }
      }
      nonmutating set {
        _$modelContext._$set(4, newValue, {
                $0.holder
            }, {
                $0.holder = $1
            })
      }
      nonmutating _modify {
        var access = _$modelContext._$beginModify(4) {
            $0.holder.take()
        }
        defer {
          _$modelContext._$endModify(4, &access) {
              $0.holder = $1
          }
        }
        yield &access.value
      }
  }

  var page: Paginated<Cell> = Paginated(items: [], currentPage: 0) {
      @storageRestrictions(accesses: _$modelContext)
      init(initialValue) {
        _$modelContext._$initialize {
            $0.page = initialValue
        }
      }
      get {
        _$modelContext._$get(5) {
            $0.page
        }
      }
      nonmutating set {
        _$modelContext._$set(5, newValue, {
                $0.page
            }, {
                $0.page = $1
            })
      }
      nonmutating _modify {
        var access = _$modelContext._$beginModify(5) {
            $0.page.take()
        }
        defer {
          _$modelContext._$endModify(5, &access) {
              $0.page = $1
          }
        }
        yield &access.value
      }
  }

  var grid: [[Cell]] = [] {
      @storageRestrictions(accesses: _$modelContext)
      init(initialValue) {
        _$modelContext._$initialize {
            $0.grid = initialValue
        }
      }
      get {
        _$modelContext._$get(6) {
            $0.grid
        }
      }
      nonmutating set {
        _$modelContext._$set(6, newValue, {
                $0.grid
            }, {
                $0.grid = $1
            })
      }
      nonmutating _modify {
        var access = _$modelContext._$beginModify(6) {
            $0.grid.take()
        }
        defer {
          _$modelContext._$endModify(6, &access) {
              $0.grid = $1
          }
        }
        yield &access.value
      }
  }

  var spare: Cell? = nil {
      @storageRestrictions(accesses: _$modelContext)
      init(initialValue) {
        _$modelContext._$initialize {
            $0.spare = initialValue
        }
      }
      get {
        _$modelContext._$get(7) {
            $0.spare
        }
      }
      nonmutating set {
        _$modelContext._$set(7, newValue, {
                $0.spare
            }, {
                $0.spare = $1
            })
      }
      nonmutating _modify {
        var access = _$modelContext._$beginModify(7) {
            $0.spare.take()
        }
        defer {
          _$modelContext._$endModify(7, &access) {
              $0.spare = $1
          }
        }
        yield &access.value
      }
  }

  var ratio: Double = 0.0 {
      @storageRestrictions(accesses: _$modelContext)
      init(initialValue) {
        _$modelContext._$initialize {
            $0.ratio = initialValue
        }
      }
      get {
        _$modelContext._$get(8) {
            $0.ratio
        }
      }
      nonmutating set {
        _$modelContext._$set(8, newValue, {
                $0.ratio
            }, {
                $0.ratio = $1
            })
      }
      nonmutating _modify {
        var access = _$modelContext._$beginModify(8) {
            $0.ratio.take()
        }
        defer {
          _$modelContext._$endModify(8, &access) {
              $0.ratio = $1
          }
        }
        yield &access.value
      }
  }

  var note: String = "" {
      @storageRestrictions(accesses: _$modelContext)
      init(initialValue) {
        _$modelContext._$initialize {
            $0.note = initialValue
        }
      }
      get {
        _$modelContext._$get(9) {
            $0.note
        }
      }
      nonmutating set {
        _$modelContext._$set(9, newValue, {
                $0.note
            }, {
                $0.note = $1
            })
      }
      nonmutating _modify {
        var access = _$modelContext._$beginModify(9) {
            $0.note.take()
        }
        defer {
          _$modelContext._$endModify(9, &access) {
              $0.note = $1
          }
        }
        yield &access.value
      }
  }

  var _$modelContext = Arbor.ModelContext<Self>()

  func _$withContext(_ context: Arbor.ModelContext<Self>) -> Self {
    var copy = self
    copy._$modelContext = context
    return copy
  }

  init(shelves: [Shelf] = [], long: [Cell] = [], byKey: [String: Cell] = [:], identified: IdentifiedArrayOf<Cell> = [], holder: Holder = .empty, page: Paginated<Cell> = Paginated(items: [], currentPage: 0), grid: [[Cell]] = [], spare: Cell? = nil, ratio: Double = 0.0, note: String = "") {
    self.shelves = shelves
    self.long = long
    self.byKey = byKey
    self.identified = identified
    self.holder = holder
    self.page = page
    self.grid = grid
    self.spare = spare
    self.ratio = ratio
    self.note = note
  }

  struct _$State: Sendable {
    var shelves: Optional<[Shelf]> = nil
    var long: Optional<[Cell]> = nil
    var byKey: Optional<[String: Cell]> = nil
    var identified: Optional<IdentifiedArrayOf<Cell>> = nil
    var holder: Optional<Holder> = nil
    var page: Optional<Paginated<Cell>> = nil
    var grid: Optional<[[Cell]]> = nil
    var spare: Optional<Cell?> = nil
    var ratio = Arbor._$uninitialized {
        0.0
    }
    var note = Arbor._$uninitialized {
        ""
    }
    init() {
    }
  }

  static func _$emptyState() -> _$State {
      _$State()
  }

  static var _$typeName: String {
      "Warehouse"
  }

  static var _$propertyCount: Int {
      10
  }

  static func _$propertyName(_ index: Int) -> String {
    switch index {
    case 0:
        return "shelves"
    case 1:
        return "long"
    case 2:
        return "byKey"
    case 3:
        return "identified"
    case 4:
        return "holder"
    case 5:
        return "page"
    case 6:
        return "grid"
    case 7:
        return "spare"
    case 8:
        return "ratio"
    case 9:
        return "note"
    default:
        return "#\(index)"
    }
  }

  static func _$visit(_ state: _$State, property: Int, into visitor: inout Arbor.ModelVisitor) {
    switch property {
    case 0:
        visitor.visit(state.shelves)
    case 1:
        visitor.visit(state.long)
    case 2:
        visitor.visit(state.byKey)
    case 3:
        visitor.visit(state.identified)
    case 4:
        visitor.visit(state.holder)
    case 5:
        visitor.visit(state.page)
    case 6:
        visitor.visit(state.grid)
    case 7:
        visitor.visit(state.spare)
    case 8:
        break
    case 9:
        break
    default:
        break
    }
  }

  static func _$propertyIndex(of keyPath: PartialKeyPath<Self>) -> Int? {
    if keyPath == \Self.shelves {
        return 0
    }
    if keyPath == \Self.long {
        return 1
    }
    if keyPath == \Self.byKey {
        return 2
    }
    if keyPath == \Self.identified {
        return 3
    }
    if keyPath == \Self.holder {
        return 4
    }
    if keyPath == \Self.page {
        return 5
    }
    if keyPath == \Self.grid {
        return 6
    }
    if keyPath == \Self.spare {
        return 7
    }
    if keyPath == \Self.ratio {
        return 8
    }
    if keyPath == \Self.note {
        return 9
    }
    return nil
  }

  var id: Arbor.ModelID {
      _$modelContext.id
  }

  static func _$stateSchema(in definitions: inout Arbor._JSONSchemaDefinitions) -> Arbor._JSONSchema {
    var schema = Arbor._StateSchema()
    schema.addID()
    schema.add("shelves", \_$State.shelves, hasDefault: true, in: &definitions)
    schema.add("long", \_$State.long, hasDefault: true, in: &definitions)
    schema.add("byKey", \_$State.byKey, hasDefault: true, in: &definitions)
    schema.add("identified", \_$State.identified, hasDefault: true, in: &definitions)
    schema.add("holder", \_$State.holder, hasDefault: true, in: &definitions)
    schema.add("page", \_$State.page, hasDefault: true, in: &definitions)
    schema.add("grid", \_$State.grid, hasDefault: true, in: &definitions)
    schema.add("spare", \_$State.spare, hasDefault: true, in: &definitions)
    schema.add("ratio", \_$State.ratio, hasDefault: true, in: &definitions)
    schema.add("note", \_$State.note, hasDefault: true, in: &definitions)
    return schema.build()
  }

  func encode(to encoder: any Encoder) throws {
    var container = Arbor._StateEncodingContainer(encoder)
    try container.encodeID(_$modelContext.id)
    let state = _$modelContext._$stateForEncoding()
    try container.encode(state.shelves, forKey: "shelves")
    try container.encode(state.long, forKey: "long")
    try container.encode(state.byKey, forKey: "byKey")
    try container.encode(state.identified, forKey: "identified")
    try container.encode(state.holder, forKey: "holder")
    try container.encode(state.page, forKey: "page")
    try container.encode(state.grid, forKey: "grid")
    try container.encode(state.spare, forKey: "spare")
    try container.encode(state.ratio, forKey: "ratio")
    try container.encode(state.note, forKey: "note")
  }

  init(from decoder: any Decoder) throws {
    let container = try Arbor._StateDecodingContainer(decoder)
    var state = _$State()
    state.shelves = try container.decode(state.shelves, forKey: "shelves", default: {
            []
        })
    state.long = try container.decode(state.long, forKey: "long", default: {
            []
        })
    state.byKey = try container.decode(state.byKey, forKey: "byKey", default: {
            [:]
        })
    state.identified = try container.decode(state.identified, forKey: "identified", default: {
            []
        })
    state.holder = try container.decode(state.holder, forKey: "holder", default: {
            .empty
        })
    state.page = try container.decode(state.page, forKey: "page", default: {
            Paginated(items: [], currentPage: 0)
        })
    state.grid = try container.decode(state.grid, forKey: "grid", default: {
            []
        })
    state.spare = try container.decode(state.spare, forKey: "spare", default: {
            nil
        })
    state.ratio = try container.decode(state.ratio, forKey: "ratio", default: {
            0.0
        })
    state.note = try container.decode(state.note, forKey: "note", default: {
            ""
        })
    let context = try container.context(Self.self, state: state, decodesID: true)
    self.init(_$restoring: context)
  }

  private init(_$restoring context: Arbor.ModelContext<Self>) {
    self._$modelContext = context
  }
}

extension Warehouse: Arbor.Model {
}

enum Holder {
  case empty
  case one(Cell)
  case two(Cell, Cell)

  func _$visit(_ visitor: inout Arbor.ModelVisitor) {
    switch self {
    case .empty:
        break
    case .one(let value0):
      visitor.withComponent(.property("one")) {
        $0.withComponent(.property("_0")) {
          $0.visit(value0)
      }
      }
    case .two(let value0, let value1):
      visitor.withComponent(.property("two")) {
        $0.withComponent(.property("_0")) {
          $0.visit(value0)
      }
        $0.withComponent(.property("_1")) {
          $0.visit(value1)
      }
      }
    }
  }

  static func jsonSchema(in definitions: inout Arbor._JSONSchemaDefinitions) -> Arbor._JSONSchema {
    definitions.define("Holder") { definitions in
      Arbor._enumSchema([("empty", []), ("one", [("_0", definitions.schema(for: (Cell).self), false)]), ("two", [("_0", definitions.schema(for: (Cell).self), false), ("_1", definitions.schema(for: (Cell).self), false)])])
    }
  }
}

extension Holder: Arbor.ModelContainer, Decodable, Encodable, Arbor._JSONSchemaDescribing {
}

struct Paginated<Item: Model> {
  var items: [Item]
  var currentPage: Int

  func _$visit(_ visitor: inout Arbor.ModelVisitor) {
    visitor.withComponent(.property("items")) {
        $0.visit(self.items)
    }
    visitor.withComponent(.property("currentPage")) {
        $0.visit(self.currentPage)
    }
  }
}

extension Paginated: Arbor.ModelContainer, Decodable, Encodable {
}
