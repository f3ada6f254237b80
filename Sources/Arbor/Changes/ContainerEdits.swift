import ArborJSON

/// The smallest JSON Patch edits for a write to a property that holds models in a
/// dictionary, an optional or a `@ModelContainer` value.
///
/// Both values are encoded *shallowly*: each model inside becomes a marker naming its
/// context, so the models' own state (recorded by their own changes) is not encoded, and
/// a model still at its place compares equal. The two shallow values are diffed; a marker
/// that appears in the new value is expanded into the model's full state.
enum ContainerEdits {
  /// The key of a marker object. It cannot clash with a property name: it starts with a
  /// control character.
  static let markerKey = "\u{1}arbor.model"

  /// `value` with its models as markers; nil when it is not `Encodable` (not state).
  static func shallow(_ value: any Sendable) throws -> JSONValue? {
    guard let encodable = value as? any Encodable else { return nil }
    var encoder = JSONValueEncoder()
    encoder.substitute = { ($0 as? any Model).map(marker) }
    return try encoder.encode(encodable)
  }

  /// The edits that turn the shallow `old` into `new` (a value of the same property),
  /// relative to the property. Markers in what is written are expanded from `models`.
  static func edits(from old: JSONValue, to newValue: any Sendable, models: [ModelVisitor.Found]) -> Result<[JSONPatchOperation], ChangeEncodingError> {
    do {
      guard let new = try shallow(newValue) else { return .success([]) }
      var byMarker: [JSONValue: any Model] = [:]
      for found in models { byMarker[marker(found.model)] = found.model }
      return .success(
        try JSONPatch.difference(from: old, to: new, isAtomic: isMarker) { try expand($0, byMarker) })
    } catch let error as ChangeEncodingError {
      return .failure(error)
    } catch {
      return .failure(ChangeEncodingError(error))
    }
  }

  private static func marker(_ model: any Model) -> JSONValue {
    .object([markerKey: .int(Int64(Int(bitPattern: ObjectIdentifier(model._$anyContext))))])
  }

  private static func isMarker(_ value: JSONValue) -> Bool {
    if case .object(let members) = value, members.count == 1, members[markerKey] != nil { return true }
    return false
  }

  /// `value` with every marker replaced by the full state of its model.
  private static func expand(_ value: JSONValue, _ models: [JSONValue: any Model]) throws -> JSONValue {
    switch value {
    case .object(let members):
      if isMarker(value) {
        guard let model = models[value] else {
          throw ChangeEncodingError(description: "a model of the new value was not found among its children")
        }
        return try JSONValueEncoder().encode(model)
      }
      return .object(try members.mapValues { try expand($0, models) })
    case .array(let elements):
      return .array(try elements.map { try expand($0, models) })
    default:
      return value
    }
  }
}

/// A property's value before a write, encoded shallowly (see ``ContainerEdits``) while
/// someone records the tree's changes. Generated code passes it along; do not use.
public struct _ShallowValue: Sendable {
  let json: Result<JSONValue?, ChangeEncodingError>

  /// Nothing was encoded: nobody records changes, or the value is not state.
  @usableFromInline static let none = _ShallowValue(json: .success(nil))
}

extension AnyModelContext {
  /// `value`, the current value of a property holding models, encoded shallowly if the
  /// tree records changes. Lock held.
  @usableFromInline
  final func _shallowBefore(_ value: (any Sendable)?) -> _ShallowValue {
    guard let value, lifetime == .anchored, let tree = unownedTree,
      tree._withUnsafeGuaranteedRef({ $0.fanOut.isRecording })
    else { return .none }
    if value is any _ModelArray { return .none }  // reconciled by identity, not by edits
    do {
      return _ShallowValue(json: .success(try ContainerEdits.shallow(value)))
    } catch {
      return _ShallowValue(json: .failure(ChangeEncodingError(error)))
    }
  }
}
