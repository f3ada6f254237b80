/// A model's keys of one ``PropagatingKeys`` namespace as properties: `node.local`
/// (``ModelLocalValues``) and `node.environment` (``ModelEnvironment``). A read returns
/// the model's own value, or for ``EnvironmentKeys`` the nearest ancestor's (first parent
/// of a shared model), or the key's default value; a write sets the model's own value,
/// which for ``EnvironmentKeys`` its descendants see too. Reads are observable (in
/// `Observed`, `memoize`, `expect`).
///
/// ```swift
/// node.local.isEditing = true
/// root.node.environment.theme = .dark          // for the whole tree
/// let theme = child.node.environment.theme     // .dark, inherited
/// ```
@dynamicMemberLookup
public struct ModelKeyValues<M: Model, Namespace: PropagatingKeys>: Sendable {
  let node: ModelNode<M>

  /// The value of `key` the model sees; setting it sets the model's own value.
  ///
  /// ```swift
  /// let loggedIn = node.environment.isLoggedIn
  /// ```
  public subscript<Value: Sendable>(dynamicMember key: KeyPath<Namespace, KeyStorage<Namespace, Value>>) -> Value {
    get { node.context.read(key) }
    nonmutating set { node.context.write(key, newValue) }
  }
}
