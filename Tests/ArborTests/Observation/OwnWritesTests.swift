import Arbor
import ArborTesting
import Testing

/// Observers that write what they observe: counted once per outside change.
@Model struct SelfCountingEditor {
  var text = ""
  var changes = 0

  func onActivate() {
    node.forEach(observeModifications(kinds: .properties)) { _ in changes += 1 }
  }
}

/// The same with a loop of its own over the stream.
@Model struct LoopingEditor {
  var text = ""
  var changes = 0

  func onActivate() {
    let modifications = observeModifications(kinds: .properties)
    node.task {
      for await _ in modifications { changes += 1 }
    }
  }
}

/// The same with `cancelPrevious`: the handler runs in a task of its own.
@Model struct LatestEditor {
  var text = ""
  var changes = 0

  func onActivate() {
    node.forEach(observeModifications(kinds: .properties), cancelPrevious: true) { _ in changes += 1 }
  }
}

/// The same over `observeAnyModification()`.
@Model struct AnyEditor {
  var text = ""
  var changes = 0

  func onActivate() {
    node.forEach(observeAnyModification()) { _ in changes += 1 }
  }
}

/// The dirty flag of the guide: set by any outside change, cleared by a save.
@Model struct DirtyDocument {
  var body = ""
  var hasUnsavedChanges = false

  func onActivate() {
    // The flag itself is not an edit: a save that clears it does not make it dirty.
    node.excludeFromModifications(\.hasUnsavedChanges)
    node.forEach(observeModifications(kinds: .properties)) { _ in hasUnsavedChanges = true }
  }

  func save() { hasUnsavedChanges = false }
}

/// A stream of modifications does not emit for its own writes: an observer that writes
/// what it observes runs once per outside change instead of committing revisions forever.
@Suite struct OwnWritesTests {
  /// Waits until `condition` holds, then checks the revision stands still for a while:
  /// nothing feeds itself.
  func settlesAndStaysStill<M: Model>(_ anchor: ModelAnchor<M>, _ what: String, _ condition: @escaping @Sendable () -> Bool) async throws {
    try await withDeadline(what) {
      while !condition() { try await Task.sleep(for: .milliseconds(5)) }
    }
    let revision = anchor.revision
    try await Task.sleep(for: .milliseconds(200))
    #expect(anchor.revision == revision, "\(anchor.revision - revision) revisions committed with nothing changing from outside")
  }

  /// Three outside edits, each counted once by the model's own observer, which then stops.
  func countsEachOutsideChangeOnce<M: Model>(_ model: M, text: WritableKeyPath<M, String> & Sendable, changes: KeyPath<M, Int> & Sendable) async throws {
    let (model, anchor) = model.andAnchor()
    var edited = model
    for round in 1...3 {
      edited[keyPath: text] += "x"
      try await settlesAndStaysStill(anchor, "change \(round) to be counted") { model[keyPath: changes] >= round }
      #expect(model[keyPath: changes] == round)
    }
  }

  @Test func aForEachObserverThatWritesWhatItObservesRunsOncePerOutsideChange() async throws {
    try await countsEachOutsideChangeOnce(SelfCountingEditor(), text: \.text, changes: \.changes)
  }

  @Test func aLoopOfItsOwnOverTheStream() async throws {
    try await countsEachOutsideChangeOnce(LoopingEditor(), text: \.text, changes: \.changes)
  }

  @Test func aForEachThatCancelsThePreviousHandler() async throws {
    try await countsEachOutsideChangeOnce(LatestEditor(), text: \.text, changes: \.changes)
  }

  @Test func observeAnyModificationToo() async throws {
    try await countsEachOutsideChangeOnce(AnyEditor(), text: \.text, changes: \.changes)
  }

  @Test func theDirtyFlagPatternKeepsWorking() async throws {
    let (document, anchor) = DirtyDocument().andAnchor()
    document.body = "a"
    try await settlesAndStaysStill(anchor, "the document to be dirty") { document.hasUnsavedChanges }
    document.save()
    try await Task.sleep(for: .milliseconds(50))
    #expect(!document.hasUnsavedChanges, "a save is not an edit")
    document.body = "ab"
    try await settlesAndStaysStill(anchor, "the document to be dirty again") { document.hasUnsavedChanges }
  }
}
