import ArborLocking
import ArborJSON

extension Model {
  /// Every model type a tree rooted at this type can hold, the root first: the types its
  /// state schema reaches through child properties, arrays, optionals and containers.
  ///
  /// ```swift
  /// AppModel.modelTypesInTree.map { $0._$typeName }   // ["AppModel", "CounterRowModel", "CounterModel", …]
  /// ```
  public static var modelTypesInTree: [any Model.Type] {
    let collector = ModelTypeCollector()
    ModelTypeCollector.$current.withValue(collector) {
      var definitions = JSONSchemaDefinitions()
      _ = jsonSchema(in: &definitions)
    }
    return collector.types
  }
}

/// Collects the model types whose schema is asked for while it is the current collector.
final class ModelTypeCollector: Sendable {
  @TaskLocal static var current: ModelTypeCollector?

  private let seen = LockedState<[(ObjectIdentifier, any Model.Type)]>([])

  func add<M: Model>(_ type: M.Type) {
    seen.withLock { list in
      guard !list.contains(where: { $0.0 == ObjectIdentifier(type) }) else { return }
      list.append((ObjectIdentifier(type), type))
    }
  }

  var types: [any Model.Type] { seen.withLock { $0.map(\.1) } }
}
