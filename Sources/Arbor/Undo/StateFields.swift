import ArborJSON
import ArborLocking
@_spi(Reflection) import Swift
/// The key paths of the fields of a model's generated `_$State`, by property index: undo
/// restores one property of a saved state without generated code of its own.
enum StateFields {
  /// The key paths found so far, by state type. Key paths are immutable (`AnyKeyPath` is
  /// not declared Sendable on every platform; the lock's value need not be).
  private static let cache = LockedState<[ObjectIdentifier: [AnyKeyPath?]]>([:])

  /// The key path of each property's field, by index; nil for a field not found.
  static func keyPaths<M: Model>(of type: M.Type) -> [AnyKeyPath?] {
    let key = ObjectIdentifier(M._$State.self)
    if let cached = cache.withLock({ $0[key] }) { return cached }
    var byName: [String: AnyKeyPath] = [:]
    _ = _forEachFieldWithKeyPath(of: M._$State.self) { name, keyPath in
      byName[String(cString: name)] = keyPath
      return true
    }
    let paths = (0..<M._$propertyCount).map { byName[M._$propertyName($0)] }
    cache.withLock { $0[key] = paths }
    return paths
  }
}

/// A generated state field: an optional (unset until initialized) of the property's type.
private protocol StateField {
  /// The value, unwrapped one level, as the property's type.
  var propertyValue: (any Sendable)? { get }
  /// Whether the property's type holds models (and so is linked and reconciled).
  static var holdsModels: Bool { get }
  /// Decodes `json` as the property's type into the field `path` of `root`; false when the
  /// type is not `Decodable` or the path is not a field of this type.
  static func decode<Root>(_ json: JSONValue, into root: inout Root, at path: AnyKeyPath, models: DecodedModels) throws -> Bool
  /// Applies `splice` to the array of models in the field `path` of `root`; false when the
  /// field is not such an array.
  static func splice<Root>(_ splice: UndoStep.Splice, into root: inout Root, at path: AnyKeyPath, models: DecodedModels) throws -> Bool
}

extension Optional: StateField {
  // The fields of a `_$State` are `Sendable` (the generated struct is), and `any Sendable`
  // has the layout of `Any` (a marker protocol has no witness table).
  fileprivate var propertyValue: (any Sendable)? { self.map { unsafeBitCast($0 as Any, to: (any Sendable).self) } }
  fileprivate static var holdsModels: Bool { Wrapped.self is any ModelContainer.Type }

  fileprivate static func decode<Root>(_ json: JSONValue, into root: inout Root, at path: AnyKeyPath, models: DecodedModels) throws -> Bool {
    guard let writable = path as? WritableKeyPath<Root, Self>, let decodable = Wrapped.self as? any Decodable.Type else { return false }
    var decoder = JSONValueDecoder()
    decoder.userInfo[.arborDecodedModels] = models
    guard let value = try decoder.decode(decodable, from: json) as? Wrapped else { return false }
    root[keyPath: writable] = value
    return true
  }

  fileprivate static func splice<Root>(_ splice: UndoStep.Splice, into root: inout Root, at path: AnyKeyPath, models: DecodedModels) throws -> Bool {
    guard let writable = path as? WritableKeyPath<Root, Self>, let array = root[keyPath: writable] as? any SplicedModelArray,
      let spliced = try array.applying(splice, models: models) as? Wrapped
    else { return false }
    root[keyPath: writable] = spliced
    return true
  }
}

extension StateFields {
  /// The values of `properties` in `saved`, by name, as JSON; an array of models as the
  /// splice that turns its value in `current` back into the saved one. A value that is not
  /// `Encodable` (or fails to encode) is left out. Tree lock held.
  static func encodedPart<M: Model>(
    _ properties: [Int], saved: M._$State, current: M._$State, in type: M.Type
  ) -> (values: [String: JSONValue], splices: [String: UndoStep.Splice]) {
    let paths = keyPaths(of: M.self)
    var values: [String: JSONValue] = [:]
    var splices: [String: UndoStep.Splice] = [:]
    for property in properties where property < paths.count {
      guard let path = paths[property], let field = saved[keyPath: path] as? any StateField, let value = field.propertyValue else { continue }
      let name = M._$propertyName(property)
      if let array = value as? any SplicedModelArray, let now = (current[keyPath: path] as? any StateField)?.propertyValue,
        let splice = array.splice(restoringFrom: now)
      {
        splices[name] = splice
      } else if let encodable = value as? any Encodable, let json = try? JSONValueEncoder().encode(encodable) {
        values[name] = json
      }
    }
    return (values, splices)
  }
}

extension ModelContext {
  /// The undo part restoring `values` (property name to JSON) and `splices` of this model:
  /// the current state with those properties decoded or spliced into it. Tree lock held.
  func decodedUndoPart(_ values: [String: JSONValue], splices: [String: UndoStep.Splice]?, models: DecodedModels) -> StateUndoPart<M>? {
    let paths = StateFields.keyPaths(of: M.self)
    var state = _state
    var properties: [Int] = []
    for property in 0..<min(M._$propertyCount, paths.count) {
      let name = M._$propertyName(property)
      let json = values[name]
      let splice = splices?[name]
      guard json != nil || splice != nil, let path = paths[property], let field = type(of: path).valueType as? any StateField.Type
      else { continue }
      do {
        let restored =
          if let splice { try field.splice(splice, into: &state, at: path, models: models) } else {
            try field.decode(json!, into: &state, at: path, models: models)
          }
        if restored { properties.append(property) }
      } catch {
        tree?.pendingIssues.append(
          "An undo step kept for '\(name)' of \(M._$typeName) cannot be applied (\(error)); that property is not restored.")
      }
    }
    guard !properties.isEmpty else { return nil }
    return StateUndoPart(context: self, properties: properties, state: state)
  }
}

extension ModelContext {
  /// Writes the values `saved` holds for `properties` into the state, as writes of the
  /// model (recorded, linking and unlinking models, waking observers). Lock held, inside
  /// `scope`.
  func restoreProperties(_ properties: [Int], from saved: M._$State, _ scope: inout _WriteScope) {
    let paths = StateFields.keyPaths(of: M.self)
    for property in properties where property < paths.count {
      guard let path = paths[property], _canWrite(property, &scope) else { continue }
      restore(property, path, from: saved, &scope)
    }
  }

  private func restore(_ property: Int, _ path: AnyKeyPath, from saved: M._$State, _ scope: inout _WriteScope) {
    guard let value = saved[keyPath: path] else { return }
    func write<V>(_ value: V) {
      // Metatype casts: a cast of an optional value could unwrap it.
      guard let writable = path as? WritableKeyPath<M._$State, V>, let fieldType = V.self as? any StateField.Type else { return }
      func unwrapped<F: StateField>(_ field: V, as type: F.Type) -> (any Sendable)? { (field as? F)?.propertyValue }
      guard let newValue = unwrapped(value, as: fieldType) else { return }
      if fieldType.holdsModels {
        let before = _shallowBefore(unwrapped(_state[keyPath: writable], as: fieldType))
        _state[keyPath: writable] = value
        _didSetContainer(property, newValue, old: before, &scope)
      } else {
        _state[keyPath: writable] = value
        _didSet(property, &scope) { newValue }
      }
    }
    _openExistential(value, do: write)
  }
}

extension StateFields {
  /// The value of the field `path` of `state` as JSON; nil when it is not `Encodable`.
  /// Tree lock held.
  static func encodedValue<State>(_ state: State, at path: AnyKeyPath) throws -> JSONValue? {
    guard let field = state[keyPath: path] as? any StateField, let value = field.propertyValue, let encodable = value as? any Encodable else {
      return nil
    }
    return try JSONValueEncoder().encode(encodable)
  }

  /// How many models the field `path` of `state` holds when it is an array of models (which
  /// a replay edits by splices); nil for any other value.
  static func modelArrayCount<State>(_ state: State, at path: AnyKeyPath) -> Int? {
    guard let field = state[keyPath: path] as? any StateField, let array = field.propertyValue as? any SplicedModelArray else { return nil }
    return array.count
  }

  /// Splices or decodes into the field `path` of `state`; false when the field cannot take it.
  static func write<State>(_ splice: UndoStep.Splice?, or json: JSONValue, into state: inout State, at path: AnyKeyPath, models: DecodedModels) throws -> Bool {
    guard let field = type(of: path).valueType as? any StateField.Type else { return false }
    if let splice { return try field.splice(splice, into: &state, at: path, models: models) }
    return try field.decode(json, into: &state, at: path, models: models)
  }
}
