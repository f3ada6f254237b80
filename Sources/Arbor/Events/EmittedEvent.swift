/// An event as the tree records it for outside consumers (the daemon's event streams).
///
/// ```swift
/// for try await emitted in anchor.events() where emitted.isExportable {
///   print(emitted.revision, emitted.sourcePath, emitted.type)
/// }
/// ```
public struct EmittedEvent: Sendable {
  /// The tree's revision when the event was sent.
  public let revision: UInt64
  /// The id of the model that sent it.
  public let source: ModelID
  /// The sending model's type name.
  public let sourceType: String
  /// The sending model's path from the root.
  public let sourcePath: ModelPath
  /// The event's type name, e.g. `CounterModel.Event`.
  public let type: String
  /// The event itself.
  public let event: any Sendable
  /// Whether the event is `Codable`, so that it can leave the process.
  public let isExportable: Bool
}
