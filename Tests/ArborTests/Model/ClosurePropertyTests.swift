import Arbor
import ArborJSON
import ArborTesting
import ConcurrencyExtras
import Dependencies
import Foundation
import Testing

/// A fact about a number, for the closure models below.
struct NumberFactClient: DependencyKey, Sendable {
  var fetch: @Sendable (Int) async throws -> String
  static let liveValue = NumberFactClient { "\($0) is a number." }
  static let testValue = NumberFactClient { "\($0) is a test number." }
}

extension DependencyValues {
  var factClient: NumberFactClient {
    get { self[NumberFactClient.self] }
    set { self[NumberFactClient.self] = newValue }
  }
}

/// A closure without a value a restore could give it: the model works in process only.
@Model struct FactModel {
  let count: Int
  let onFact: @Sendable (Int, String) -> Void
  func factButtonTapped() { node.task { onFact(count, try await node.factClient.fetch(count)) } catch: { _ in } }
}

/// Closures of several shapes, as the guide's models hold them.
@Model struct RecordMeetingModel {
  let onSave: @Sendable (String) async -> Void
  let onDiscard: @Sendable () -> Void
  var transcript = ""

  func saveTapped() { node.task { await onSave(transcript) } }
  func discardTapped() { onDiscard() }
}

/// An optional closure, an ignored closure with a default and an ignored optional
/// closure: a restore gives each a value (nil, the default, nil), so the model restores.
@Model struct TappableModel {
  typealias Format = @Sendable (Int) -> String
  let onTap: (@Sendable (Int) -> Void)?
  @ModelIgnored var onLongPress: @Sendable () -> Void = {}
  @ModelIgnored let format: Format?
  var taps = 0

  func tapped() {
    taps += 1
    onTap?(taps)
  }
}

/// A parent that makes closure children, as the guide wires them: the closures capture
/// the parent.
@Model struct MeetingsModel {
  var recording: RecordMeetingModel? = nil
  var saved: [String] = []
  var facts: [FactModel] = []

  func startRecording() {
    recording = RecordMeetingModel(
      onSave: { transcript in
        saved.append(transcript)
        recording = nil
      },
      onDiscard: { recording = nil }
    )
  }
}

/// A handle that is not `Codable`, kept out of the state by `@ModelIgnored`.
final class DeviceHandle: Sendable {}

@Model struct ConnectedModel {
  @ModelIgnored let handle: DeviceHandle
  var name = "probe"
}

/// A parent of the restorable closure model.
@Model struct TappablesModel {
  var rows: [TappableModel] = []
}

@Suite struct ClosurePropertyTests {
  @Test func theGuidesClosuresWorkInProcess() async throws {
    let received = LockIsolated<[String]>([])
    let (fact, anchor) = FactModel(count: 3, onFact: { count, fact in received.withValue { $0.append("\(count): \(fact)") } })
      .andAnchor { $0.factClient = NumberFactClient { "\($0) is odd." } }
    fact.factButtonTapped()
    await expectEventually("the fact to reach the closure") { received.value == ["3: 3 is odd."] }

    let (meetings, meetingsAnchor) = MeetingsModel().andAnchor()
    meetings.startRecording()
    let recording = try #require(meetings.recording)
    recording.transcript = "Hello"
    recording.saveTapped()
    await expectEventually("the async onSave to save and close") { meetings.saved == ["Hello"] && meetings.recording == nil }
    meetings.startRecording()
    try #require(meetings.recording).discardTapped()
    #expect(meetings.recording == nil)
    #expect(meetings.saved == ["Hello"])
    _ = (anchor, meetingsAnchor)
  }

  @Test func anOptionalClosureMayBeNilAndAnIgnoredOneHasItsDefault() {
    let taps = LockIsolated<[Int]>([])
    let (model, anchor) = TappableModel(onTap: { tap in taps.withValue { $0.append(tap) } }, format: { "#\($0)" }).andAnchor()
    model.tapped()
    model.tapped()
    #expect(taps.value == [1, 2])
    #expect(model.format?(7) == "#7")
    model.onLongPress()
    let silent = TappableModel(onTap: nil, format: nil)
    silent.tapped()
    #expect(silent.taps == 1)
    _ = anchor
  }

  @Test func closuresAreNotInTheStateTheSchemaOrThePatches() async throws {
    let (meetings, anchor) = MeetingsModel().andAnchor()
    let changes = anchor.changeSets()
    meetings.startRecording()
    let recording = try #require(meetings.recording)
    recording.transcript = "notes"
    meetings.facts.append(FactModel(count: 2, onFact: { _, _ in }))

    let state = try anchor.state().value
    #expect(state["recording"] == ["id": .string(recording.id.description), "transcript": "notes"])
    #expect(state["facts"]?[0] == ["id": .string(meetings.facts[0].id.description), "count": 2])

    let definitions = try #require(MeetingsModel.stateSchema.value["$defs"])
    #expect(definitions["RecordMeetingModel"]?["properties"]?.objectValue?.keys.sorted() == ["id", "transcript"])
    #expect(definitions["FactModel"]?["properties"]?.objectValue?.keys.sorted() == ["count", "id"])
    #expect(TappableModel.stateSchema.value["$defs"]?["TappableModel"]?["properties"]?.objectValue?.keys.sorted() == ["id", "taps"])

    let patches = try await withDeadline("the three change sets") {
      var collected: [JSONPatch] = []
      for try await changeSet in changes {
        collected.append(changeSet.patch)
        if collected.count == 3 { break }
      }
      return collected
    }
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    let text = String(decoding: try encoder.encode(patches), as: UTF8.self)
    #expect(text.contains(#""value":{"id":"\#(recording.id)","transcript":""}"#), "\(text)")
    #expect(text.contains(#""value":{"count":2,"id":"\#(meetings.facts[0].id)"}"#), "\(text)")
    #expect(!text.contains("onSave") && !text.contains("onDiscard") && !text.contains("onFact"), "\(text)")
  }

  @Test func aTreeThatCanHoldAClosureCannotBeSavedAndSaysWhichProperty() throws {
    #expect(!FactModel.isRestorable)
    #expect(!MeetingsModel.isRestorable)
    #expect(TappableModel.isRestorable)
    #expect(TappablesModel.isRestorable)
    #expect(
      MeetingsModel.unrestorableProperties == [
        UnrestorableProperty(model: "RecordMeetingModel", name: "onSave", declaration: "let onSave: @Sendable (String) async -> Void"),
        UnrestorableProperty(model: "RecordMeetingModel", name: "onDiscard", declaration: "let onDiscard: @Sendable () -> Void"),
        UnrestorableProperty(model: "FactModel", name: "onFact", declaration: "let onFact: @Sendable (Int, String) -> Void"),
      ])

    // Refused by type, even while the tree holds no such model.
    let (_, anchor) = MeetingsModel().andAnchor()
    let refusal = SnapshotError.notRestorable(root: "MeetingsModel", property: MeetingsModel.unrestorableProperties[0])
    #expect(throws: refusal) { try anchor.snapshot() }
    #expect(throws: refusal) { try anchor.snapshotRecord() }
    #expect(
      refusal.description
        == "a tree of MeetingsModel cannot be saved or restored: it can hold a RecordMeetingModel, whose 'let onSave: @Sendable (String) async -> Void' is not state, and a restore would have no value to give it; have RecordMeetingModel send an event instead of calling a closure (Models.md, \"Closures or events\"), or make 'onSave' optional so that a restored model gets nil"
    )
    #expect(
      SnapshotError.notRestorable(root: "FactModel", property: FactModel.unrestorableProperties[0]).description.hasPrefix(
        "a tree of FactModel cannot be saved or restored: FactModel's 'let onFact: @Sendable (Int, String) -> Void' is not state"))
    // Its state can still be read.
    #expect(try anchor.state().value.objectValue?.keys.sorted() == ["facts", "id", "recording", "saved"])
    // An ignored `let` that is not a closure: the message asks only for an optional.
    #expect(ConnectedModel.unrestorableProperties == [UnrestorableProperty(model: "ConnectedModel", name: "handle", declaration: "@ModelIgnored let handle: DeviceHandle")])
    #expect(
      SnapshotError.notRestorable(root: "ConnectedModel", property: ConnectedModel.unrestorableProperties[0]).description
        == "a tree of ConnectedModel cannot be saved or restored: ConnectedModel's '@ModelIgnored let handle: DeviceHandle' is not state, and a restore would have no value to give it; make 'handle' optional so that a restored model gets nil"
    )
    #expect(try ConnectedModel(handle: DeviceHandle()).andAnchor().1.state().value.objectValue?.keys.sorted() == ["id", "name"])
  }

  @Test func aRestoreOfSuchATreeIsRefusedBeforeAnythingIsDecoded() throws {
    let (_, anchor) = MeetingsModel().andAnchor()
    let state = try anchor.state()
    let record = SnapshotRecord(root: "MeetingsModel", schema: MeetingsModel.schemaHash, revision: state.revision, createdAt: Date(), state: state.value)
    let refusal = SnapshotError.notRestorable(root: "MeetingsModel", property: MeetingsModel.unrestorableProperties[0])
    #expect(throws: refusal) { try MeetingsModel.andAnchor(restoring: record) }
    #expect(throws: refusal) { try MeetingsModel.andAnchor(restoring: try JSONEncoder().encode(record)) }

    // Decoding the model by hand fails with the same words, at its path.
    let json = Data(#"{"id": "00000000000000aa", "count": 1}"#.utf8)
    do {
      _ = try JSONDecoder().decode([FactModel].self, from: Data("[\(String(decoding: json, as: UTF8.self))]".utf8))
      Issue.record("a FactModel was decoded")
    } catch DecodingError.dataCorrupted(let context) {
      #expect(context.codingPath.map(\.intValue) == [0])
      #expect(context.debugDescription.contains("FactModel's 'let onFact: @Sendable (Int, String) -> Void' is not state"))
    }
    // A model with tracked properties refuses before any of them is initialized.
    #expect(throws: DecodingError.self) {
      try JSONDecoder().decode(RecordMeetingModel.self, from: Data(#"{"id": "00000000000000ab", "transcript": "x"}"#.utf8))
    }
  }

  @Test func optionalAndDefaultedClosuresRestoreAsNilAndTheirDefault() throws {
    let (rows, anchor) = TappablesModel().andAnchor()
    rows.rows.append(TappableModel(onTap: { _ in }, format: { "\($0)" }))
    rows.rows[0].tapped()
    let (restored, restoredAnchor) = try TappablesModel.andAnchor(restoring: anchor.snapshot())
    #expect(try restoredAnchor.state().value == anchor.state().value)
    let row = restored.rows[0]
    #expect(row.onTap == nil)
    #expect(row.format == nil)
    row.onLongPress()
    row.tapped()
    #expect(row.taps == 2)
  }
}
