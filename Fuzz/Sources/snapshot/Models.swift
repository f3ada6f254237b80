// The models of the snapshot target, as the @Model macro expands them (the fuzz build has
// no macro plugin, so no swift-syntax). Written by expanding, with the main build's plugin
// (swiftc -typecheck -load-plugin-executable .build/debug/ArborMacros-tool#ArborMacros
// -Xfrontend -dump-macro-expansions), these declarations:
//
//   @Model struct FuzzRoot {
//     var title = ""
//     var counters: [FuzzCounter] = []
//     var selected: FuzzCounter? = nil
//     var limits: [String: Int] = [:]
//     var ratio = 0.0
//     var note: String? = nil
//     let created: Int
//   }
//
//   @Model struct FuzzCounter {
//     var count = 0
//     var label = ""
//     var alert: FuzzAlert? = nil
//   }
//
// After a change to what the macro generates, expand them again (Docs/Testing.md, "Fuzzing").

import Arbor

/// A plain value inside a model.
struct FuzzAlert: Codable, Hashable, Sendable {
  var title: String
  var message: String
}

struct FuzzRoot {
  var title: String = "" {
      @storageRestrictions(accesses: _$modelContext)
      init(initialValue) {
        _$modelContext._$initialize {
            $0.title = initialValue
        }
      }
      get {
        _$modelContext._$get(0) {
            $0.title
        }
      }
      nonmutating set {
        _$modelContext._$set(0, newValue, {
                $0.title
            }, {
                $0.title = $1
            })
      }
      nonmutating _modify {
        var access = _$modelContext._$beginModify(0) {
            $0.title.take()
        }
        defer {
          _$modelContext._$endModify(0, &access) {
              $0.title = $1
          }
        }
        yield &access.value
      }
  }

  var counters: [FuzzCounter] = [] {
      @storageRestrictions(accesses: _$modelContext)
      init(initialValue) {
        _$modelContext._$initialize {
            $0.counters = initialValue
        }
      }
      get {
        _$modelContext._$get(1) {
            $0.counters
        }
      }
      nonmutating set {
        _$modelContext._$set(1, newValue, {
                $0.counters
            }, {
                $0.counters = $1
            })
      }
      nonmutating _modify {
        var access = _$modelContext._$beginModify(1) {
            $0.counters.take()
        }
        defer {
          _$modelContext._$endModify(1, &access) {
              $0.counters = $1
          }
        }
        yield &access.value
      }
  }

  var selected: FuzzCounter? = nil {
      @storageRestrictions(accesses: _$modelContext)
      init(initialValue) {
        _$modelContext._$initialize {
            $0.selected = initialValue
        }
      }
      get {
        _$modelContext._$get(2) {
            $0.selected
        }
      }
      nonmutating set {
        _$modelContext._$set(2, newValue, {
                $0.selected
            }, {
                $0.selected = $1
            })
      }
      nonmutating _modify {
        var access = _$modelContext._$beginModify(2) {
            $0.selected.take()
        }
        defer {
          _$modelContext._$endModify(2, &access) {
              $0.selected = $1
          }
        }
        yield &access.value
      }
  }

  var limits: [String: Int] = [:] {
      @storageRestrictions(accesses: _$modelContext)
      init(initialValue) {
        _$modelContext._$initialize {
            $0.limits = initialValue
        }
      }
      get {
        _$modelContext._$get(3) {
            $0.limits
        }
      }
      nonmutating set {
        _$modelContext._$set(3, newValue, {
                $0.limits
            }, {
                $0.limits = $1
            })
      }
      nonmutating _modify {
        var access = _$modelContext._$beginModify(3) {
            $0.limits.take()
        }
        defer {
          _$modelContext._$endModify(3, &access) {
              $0.limits = $1
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
        _$modelContext._$get(4) {
            $0.ratio
        }
      }
      nonmutating set {
        _$modelContext._$set(4, newValue, {
                $0.ratio
            }, {
                $0.ratio = $1
            })
      }
      nonmutating _modify {
        var access = _$modelContext._$beginModify(4) {
            $0.ratio.take()
        }
        defer {
          _$modelContext._$endModify(4, &access) {
              $0.ratio = $1
          }
        }
        yield &access.value
      }
  }

  var note: String? = nil {
      @storageRestrictions(accesses: _$modelContext)
      init(initialValue) {
        _$modelContext._$initialize {
            $0.note = initialValue
        }
      }
      get {
        _$modelContext._$get(5) {
            $0.note
        }
      }
      nonmutating set {
        _$modelContext._$set(5, newValue, {
                $0.note
            }, {
                $0.note = $1
            })
      }
      nonmutating _modify {
        var access = _$modelContext._$beginModify(5) {
            $0.note.take()
        }
        defer {
          _$modelContext._$endModify(5, &access) {
              $0.note = $1
          }
        }
        yield &access.value
      }
  }

  let created: Int

  var _$modelContext = Arbor.ModelContext<Self>()

  func _$withContext(_ context: Arbor.ModelContext<Self>) -> Self {
    var copy = self
    copy._$modelContext = context
    return copy
  }

  init(title: String = "", counters: [FuzzCounter] = [], selected: FuzzCounter? = nil, limits: [String: Int] = [:], ratio: Double = 0.0, note: String? = nil, created: Int) {
    self.title = title
    self.counters = counters
    self.selected = selected
    self.limits = limits
    self.ratio = ratio
    self.note = note
    self.created = created
  }

  struct _$State: Sendable {
    var title = Arbor._$uninitialized {
        ""
    }
    var counters: Optional<[FuzzCounter]> = nil
    var selected: Optional<FuzzCounter?> = nil
    var limits: Optional<[String: Int]> = nil
    var ratio = Arbor._$uninitialized {
        0.0
    }
    var note: Optional<String?> = nil
    init() {
    }
  }

  static func _$emptyState() -> _$State {
      _$State()
  }

  static var _$typeName: String {
      "FuzzRoot"
  }

  static var _$propertyCount: Int {
      6
  }

  static func _$propertyName(_ index: Int) -> String {
    switch index {
    case 0:
        return "title"
    case 1:
        return "counters"
    case 2:
        return "selected"
    case 3:
        return "limits"
    case 4:
        return "ratio"
    case 5:
        return "note"
    default:
        return "#\(index)"
    }
  }

  static func _$visit(_ state: _$State, property: Int, into visitor: inout Arbor.ModelVisitor) {
    switch property {
    case 0:
        break
    case 1:
        visitor.visit(state.counters)
    case 2:
        visitor.visit(state.selected)
    case 3:
        break
    case 4:
        break
    case 5:
        break
    default:
        break
    }
  }

  static func _$propertyIndex(of keyPath: PartialKeyPath<Self>) -> Int? {
    if keyPath == \Self.title {
        return 0
    }
    if keyPath == \Self.counters {
        return 1
    }
    if keyPath == \Self.selected {
        return 2
    }
    if keyPath == \Self.limits {
        return 3
    }
    if keyPath == \Self.ratio {
        return 4
    }
    if keyPath == \Self.note {
        return 5
    }
    return nil
  }

  var id: Arbor.ModelID {
      _$modelContext.id
  }

  static func _$stateSchema(in definitions: inout Arbor._JSONSchemaDefinitions) -> Arbor._JSONSchema {
    var schema = Arbor._StateSchema()
    schema.addID()
    schema.add("title", \_$State.title, hasDefault: true, in: &definitions)
    schema.add("counters", \_$State.counters, hasDefault: true, in: &definitions)
    schema.add("selected", \_$State.selected, hasDefault: true, in: &definitions)
    schema.add("limits", \_$State.limits, hasDefault: true, in: &definitions)
    schema.add("ratio", \_$State.ratio, hasDefault: true, in: &definitions)
    schema.add("note", \_$State.note, hasDefault: true, in: &definitions)
    schema.add("created", Int.self, in: &definitions)
    return schema.build()
  }

  func encode(to encoder: any Encoder) throws {
    var container = Arbor._StateEncodingContainer(encoder)
    try container.encodeID(_$modelContext.id)
    let state = _$modelContext._$stateForEncoding()
    try container.encode(state.title, forKey: "title")
    try container.encode(state.counters, forKey: "counters")
    try container.encode(state.selected, forKey: "selected")
    try container.encode(state.limits, forKey: "limits")
    try container.encode(state.ratio, forKey: "ratio")
    try container.encode(state.note, forKey: "note")
    try container.encode(self.created, forKey: "created")
  }

  init(from decoder: any Decoder) throws {
    let container = try Arbor._StateDecodingContainer(decoder)
    let created = try container.decode(Int.self, forKey: "created")
    var state = _$State()
    state.title = try container.decode(state.title, forKey: "title", default: {
            ""
        })
    state.counters = try container.decode(state.counters, forKey: "counters", default: {
            []
        })
    state.selected = try container.decode(state.selected, forKey: "selected", default: {
            nil
        })
    state.limits = try container.decode(state.limits, forKey: "limits", default: {
            [:]
        })
    state.ratio = try container.decode(state.ratio, forKey: "ratio", default: {
            0.0
        })
    state.note = try container.decode(state.note, forKey: "note", default: {
            nil
        })
    let context = try container.context(Self.self, state: state, decodesID: true)
    self.init(_$restoring: context, created: created)
  }

  private init(_$restoring context: Arbor.ModelContext<Self>, created: Int) {
    self._$modelContext = context
    self.created = created
  }
}

extension FuzzRoot: Arbor.Model {
}

struct FuzzCounter {
  var count: Int = 0 {
      @storageRestrictions(accesses: _$modelContext)
      init(initialValue) {
        _$modelContext._$initialize {
            $0.count = initialValue
        }
      }
      get {
        _$modelContext._$get(0) {
            $0.count
        }
      }
      nonmutating set {
        _$modelContext._$set(0, newValue, {
                $0.count
            }, {
                $0.count = $1
            })
      }
      nonmutating _modify {
        var access = _$modelContext._$beginModify(0) {
            $0.count.take()
        }
        defer {
          _$modelContext._$endModify(0, &access) {
              $0.count = $1
          }
        }
        yield &access.value
      }
  }

  var label: String = "" {
      @storageRestrictions(accesses: _$modelContext)
      init(initialValue) {
        _$modelContext._$initialize {
            $0.label = initialValue
        }
      }
      get {
        _$modelContext._$get(1) {
            $0.label
        }
      }
      nonmutating set {
        _$modelContext._$set(1, newValue, {
                $0.label
            }, {
                $0.label = $1
            })
      }
      nonmutating _modify {
        var access = _$modelContext._$beginModify(1) {
            $0.label.take()
        }
        defer {
          _$modelContext._$endModify(1, &access) {
              $0.label = $1
          }
        }
        yield &access.value
      }
  }

  var alert: FuzzAlert? = nil {
      @storageRestrictions(accesses: _$modelContext)
      init(initialValue) {
        _$modelContext._$initialize {
            $0.alert = initialValue
        }
      }
      get {
        _$modelContext._$get(2) {
            $0.alert
        }
      }
      nonmutating set {
        _$modelContext._$set(2, newValue, {
                $0.alert
            }, {
                $0.alert = $1
            })
      }
      nonmutating _modify {
        var access = _$modelContext._$beginModify(2) {
            $0.alert.take()
        }
        defer {
          _$modelContext._$endModify(2, &access) {
              $0.alert = $1
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

  init(count: Int = 0, label: String = "", alert: FuzzAlert? = nil) {
    self.count = count
    self.label = label
    self.alert = alert
  }

  struct _$State: Sendable {
    var count = Arbor._$uninitialized {
        0
    }
    var label = Arbor._$uninitialized {
        ""
    }
    var alert: Optional<FuzzAlert?> = nil
    init() {
    }
  }

  static func _$emptyState() -> _$State {
      _$State()
  }

  static var _$typeName: String {
      "FuzzCounter"
  }

  static var _$propertyCount: Int {
      3
  }

  static func _$propertyName(_ index: Int) -> String {
    switch index {
    case 0:
        return "count"
    case 1:
        return "label"
    case 2:
        return "alert"
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
    case 2:
        visitor.visit(state.alert)
    default:
        break
    }
  }

  static func _$propertyIndex(of keyPath: PartialKeyPath<Self>) -> Int? {
    if keyPath == \Self.count {
        return 0
    }
    if keyPath == \Self.label {
        return 1
    }
    if keyPath == \Self.alert {
        return 2
    }
    return nil
  }

  var id: Arbor.ModelID {
      _$modelContext.id
  }

  static func _$stateSchema(in definitions: inout Arbor._JSONSchemaDefinitions) -> Arbor._JSONSchema {
    var schema = Arbor._StateSchema()
    schema.addID()
    schema.add("count", \_$State.count, hasDefault: true, in: &definitions)
    schema.add("label", \_$State.label, hasDefault: true, in: &definitions)
    schema.add("alert", \_$State.alert, hasDefault: true, in: &definitions)
    return schema.build()
  }

  func encode(to encoder: any Encoder) throws {
    var container = Arbor._StateEncodingContainer(encoder)
    try container.encodeID(_$modelContext.id)
    let state = _$modelContext._$stateForEncoding()
    try container.encode(state.count, forKey: "count")
    try container.encode(state.label, forKey: "label")
    try container.encode(state.alert, forKey: "alert")
  }

  init(from decoder: any Decoder) throws {
    let container = try Arbor._StateDecodingContainer(decoder)
    var state = _$State()
    state.count = try container.decode(state.count, forKey: "count", default: {
            0
        })
    state.label = try container.decode(state.label, forKey: "label", default: {
            ""
        })
    state.alert = try container.decode(state.alert, forKey: "alert", default: {
            nil
        })
    let context = try container.context(Self.self, state: state, decodesID: true)
    self.init(_$restoring: context)
  }

  private init(_$restoring context: Arbor.ModelContext<Self>) {
    self._$modelContext = context
  }
}

extension FuzzCounter: Arbor.Model {
}
