/// Collects the models held by a value, each with its path relative to where the walk began.
///
/// Generated code calls ``visit(_:)``; containers call ``withComponent(_:_:)`` around their
/// elements. Users never need to touch it.
public struct ModelVisitor {
  @usableFromInline
  struct Found {
    var model: any Model
    /// Where the model sits below the property. Kept as a position, not as a copy of the
    /// walk's components: a copy would make the walk's next step copy its array, one
    /// allocation per model found.
    var position: ChildPosition

    var components: [PathComponent] { position.components }

    @usableFromInline
    init(model: any Model, components: [PathComponent]) {
      self.model = model
      self.position = ChildPosition(components)
    }
  }

  @usableFromInline var found: [Found] = []
  @usableFromInline var components: [PathComponent] = []
  /// Set for a lookup by path: a container at the start of the walk visits only its
  /// element or entry with this token (an index or a key) instead of all of them.
  @usableFromInline var lookingFor: String?

  init() {}

  /// The token a container should visit alone, when the walk is a lookup by path and the
  /// container is where the walk began. Generated containers may ignore it.
  @inlinable
  public var wantedToken: String? { components.isEmpty ? lookingFor : nil }

  /// Visits a value statically known to hold models.
  @inlinable
  public mutating func visit<V: ModelContainer>(_ value: V?) {
    value?._$visit(&self)
  }

  /// Visits a value that may hold models only through a generic parameter.
  @inlinable
  public mutating func visit<V>(_ value: V?) {
    guard let value, let container = value as? any ModelContainer else { return }
    container._$visit(&self)
  }

  /// Reports a model. Called by `Model._$visit`.
  @inlinable
  public mutating func found(_ model: some Model) {
    found.append(Found(model: model, components: components))
  }

  /// Runs `body` with one more path component pushed.
  @inlinable
  public mutating func withComponent(_ component: PathComponent, _ body: (inout ModelVisitor) -> Void) {
    components.append(component)
    body(&self)
    components.removeLast()
  }
}
