import ArborJSON

/// One step of a path from the root of a tree to a value inside it.
///
/// Paths read like JSON Pointers: `/counters/2/counter` is
/// `[.property("counters"), .index(2), .property("counter")]`.
public enum PathComponent: Hashable, Sendable, CustomStringConvertible {
  /// A stored property of a model, or a field of a container.
  case property(String)
  /// A position in an array-like container.
  case index(Int)
  /// A key in a dictionary.
  case key(String)

  public var description: String {
    switch self {
    case .property(let name), .key(let name):
      return JSONPointer.escaped(name)
    case .index(let index):
      return String(index)
    }
  }
}

/// The location of a model or a value in a tree, from its root.
///
/// ```swift
/// let path: ModelPath = [.property("counters"), .index(0)]
/// print(path)   // /counters/0
/// ```
public struct ModelPath: Hashable, Sendable, CustomStringConvertible, ExpressibleByArrayLiteral {
  public var components: [PathComponent]

  public init(_ components: [PathComponent] = []) { self.components = components }
  public init(arrayLiteral elements: PathComponent...) { self.components = elements }

  /// The root of the tree.
  public static let root = ModelPath()

  /// This path with more components appended.
  public func appending(_ more: PathComponent...) -> ModelPath {
    ModelPath(components + more)
  }

  /// The path written as a JSON Pointer (RFC 6901).
  public var description: String {
    components.isEmpty ? "" : components.map { "/" + $0.description }.joined()
  }
}
