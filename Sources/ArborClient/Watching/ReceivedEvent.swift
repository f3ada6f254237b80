import ArborJSON
import ArborRPC

/// An event a model sent, as an event watch receives it (`events.emitted`). (Not `Arbor`'s
/// `EmittedEvent`, the event inside the tree it was sent from.)
///
/// ```swift
/// for try await event in client.events(types: ["CounterRowModel.Event"]) {
///   print(event.revision, event.sourcePath, event.event)   // 5 /counters/1 {"removeTapped":{}}
/// }
/// ```
public struct ReceivedEvent: Sendable, Hashable {
  /// The tree's revision when the event was sent.
  public var revision: UInt64
  /// The event's type, such as `CounterRowModel.Event`.
  public var type: String
  /// The event as JSON (its Codable form).
  public var event: JSONValue
  /// The id of the model that sent it.
  public var sourceID: String
  /// The path of the model that sent it, when it was sent.
  public var sourcePath: String
  /// The type of the model that sent it.
  public var sourceType: String

  /// An event as received: its revision, type and JSON, and the model that sent it.
  ///
  /// ```swift
  /// let event = ReceivedEvent(revision: 5, type: "T.Event", event: "tapped", sourceID: "72c769dae94f5355", sourcePath: "/t", sourceType: "T")
  /// ```
  public init(revision: UInt64, type: String, event: JSONValue, sourceID: String, sourcePath: String, sourceType: String) {
    self.revision = revision
    self.type = type
    self.event = event
    self.sourceID = sourceID
    self.sourcePath = sourcePath
    self.sourceType = sourceType
  }

  /// Reads the params of an `events.emitted` notification (``ArborRPC/EventsEmitted/Params``);
  /// nil when they are not one.
  public init?(params: JSONValue) {
    guard let emitted = try? JSONValueDecoder().decode(EventsEmitted.Params.self, from: params) else { return nil }
    self.init(
      revision: emitted.revision, type: emitted.type, event: emitted.event, sourceID: emitted.source.id,
      sourcePath: emitted.source.path, sourceType: emitted.source.type)
  }
}
