import ArborLocking
/// The models decoded so far in one decoding pass, by id: a model that appears more than
/// once in a snapshot (a shared model) is decoded once and shared again.
///
/// Restoring a snapshot installs one under ``CodingUserInfoKey/arborDecodedModels``;
/// without it every occurrence decodes as a model of its own.
public final class DecodedModels: Sendable {
  private let contexts = LockedState<[ModelID: AnyModelContext]>([:])

  public init() {}

  func existing(_ id: ModelID) -> AnyModelContext? {
    contexts.withLock { $0[id] }
  }

  func insert(_ context: AnyModelContext) {
    contexts.withLock { $0[context.id] = context }
  }

  /// The number of distinct models decoded.
  public var count: Int { contexts.withLock { $0.count } }
}

extension CodingUserInfoKey {
  /// Where a decoder finds its ``DecodedModels``.
  public static let arborDecodedModels = CodingUserInfoKey(rawValue: "org.arbor.decodedModels")!
}
