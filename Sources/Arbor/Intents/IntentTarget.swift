import ArborJSON

/// The model an intent is called on: by its path from the root (a JSON Pointer such as
/// `/counters/0/counter`), or by its stable id, which survives reordering.
///
/// ```swift
/// let byPath = IntentTarget.path("/counters/0/counter")
/// let byID = IntentTarget.id(counter.id)
/// ```
public enum IntentTarget: Sendable, Hashable, CustomStringConvertible {
  case path(String)
  case id(ModelID)

  /// The root of the tree.
  public static let root = IntentTarget.path("")

  public var description: String {
    switch self {
    case .path(let path): return "at '\(path)'"
    case .id(let id): return "with id \(id)"
    }
  }
}

extension Model {
  /// The model at `target` in the tree rooted at this model, or nil.
  func model(at target: IntentTarget) throws -> (any Model)? {
    switch target {
    case .path(let text):
      let pointer: JSONPointer
      do { pointer = try JSONPointer(text) } catch { throw IntentError.unknownTarget("at '\(text)': \(error)") }
      return descendant(at: pointer.tokens[...])
    case .id(let id):
      return descendant(withID: id)
    }
  }

  /// The children held by each tracked property, with their components below it.
  func childrenByProperty() -> [(name: String, found: [ModelVisitor.Found])] {
    let context = _$modelContext
    return context.withLock {
      (0..<Self._$propertyCount).map { property in
        var visitor = ModelVisitor()
        context.visitChildren(property: property, into: &visitor)
        return (Self._$propertyName(property), visitor.found)
      }
    }
  }

  private func descendant(at tokens: ArraySlice<String>) -> (any Model)? {
    guard let first = tokens.first else { return self }
    let rest = tokens.dropFirst()
    for (name, found) in childrenByProperty() where name == first {
      for entry in found {
        let components = entry.components.map(\.token)
        guard rest.starts(with: components) else { continue }
        return entry.model.descendant(at: rest.dropFirst(components.count))
      }
    }
    return nil
  }

  private func descendant(withID id: ModelID) -> (any Model)? {
    var stack: [any Model] = [self]
    var seen: Set<ObjectIdentifier> = []
    while let model = stack.popLast() {
      let context = model._$anyContext
      guard seen.insert(ObjectIdentifier(context)).inserted else { continue }
      if context.id == id { return model }
      for (_, found) in model.childrenByProperty() {
        stack.append(contentsOf: found.reversed().map(\.model))
      }
    }
    return nil
  }
}
