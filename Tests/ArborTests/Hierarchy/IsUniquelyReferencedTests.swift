import Arbor
import ArborTesting
import Testing

/// A note that can be pinned on a board besides living in a column: it is editable only
/// while it has one place, and says so through a memoized property too.
@Model struct SharableNote {
  var text = ""
  var isEditable = true
  @ModelIgnored var transitions: EventLog?
  /// Counts the computations of `status`.
  @ModelIgnored var computations: Tally?

  init(text: String = "", transitions: EventLog? = nil, computations: Tally? = nil) {
    self.text = text
    self.transitions = transitions
    self.computations = computations
  }

  var status: String {
    node.memoize(for: "status") { [computations] in
      computations?.add()
      return node.isUniquelyReferenced ? "exclusive" : "shared"
    }
  }

  func onActivate() {
    node.onChange(of: node.isUniquelyReferenced) { [transitions] wasExclusive, isExclusive in
      transitions?.append("\(wasExclusive)->\(isExclusive)")
      isEditable = isExclusive
    }
  }
}

@Model struct NoteColumn {
  var notes: [SharableNote] = []
}

@Model struct NoteBoard {
  var columns: [NoteColumn] = []
  var pinned: SharableNote? = nil
}

/// `node.isUniquelyReferenced` as an observable property: in `Observed`, in `memoize` and
/// in `onChange(of:)`, as a model becomes shared and exclusive again.
@Suite struct IsUniquelyReferencedTests {
  @Test func anObservedReadFollowsSharingAndUnsharing() async throws {
    let note = SharableNote(text: "n")
    #expect(note.node.isUniquelyReferenced, "a model that is not anchored has no second place")
    let board = NoteBoard(columns: [NoteColumn(notes: [note])]).withAnchor()
    let exclusive = DeadlineIterator(Observed { note.node.isUniquelyReferenced })
    #expect(try await exclusive.next("the current value") == true)
    board.pinned = note
    #expect(try await exclusive.next("shared by a second parent") == false)
    board.pinned = nil
    #expect(try await exclusive.next("exclusive again") == true)
    board.columns[0].notes.append(note)
    #expect(try await exclusive.next("held twice by one array") == false)
    board.columns[0].notes.removeLast()
    #expect(try await exclusive.next("held once again") == true)
    #expect(note.node.isUniquelyReferenced)
  }

  @Test func anObservedReadTurnsTrueWhenTheOtherParentIsRemoved() async throws {
    let note = SharableNote(text: "n")
    let board = NoteBoard(columns: [NoteColumn(notes: [note]), NoteColumn(notes: [note])]).withAnchor()
    let exclusive = DeadlineIterator(Observed { note.node.isUniquelyReferenced })
    #expect(try await exclusive.next("the current value") == false)
    // The second column goes: the note loses its link to it when the column is destructed.
    board.columns.removeLast()
    #expect(try await exclusive.next("the other parent was removed") == true)
    #expect(note.lifetime == .anchored)
    #expect(note.node.isUniquelyReferenced)
  }

  @Test func aMoveInsideAnArrayIsNotAParentChange() {
    let computations = Tally()
    let note = SharableNote(text: "moving", computations: computations)
    let board = NoteBoard(columns: [NoteColumn(notes: [note, SharableNote(text: "other")])]).withAnchor()
    #expect(note.status == "exclusive")
    #expect(computations.value == 1)
    board.columns[0].notes.swapAt(0, 1)
    #expect(board.columns[0].notes[1].text == "moving")
    #expect(note.status == "exclusive")
    #expect(computations.value == 1, "the move did not invalidate what depends on the note's parents")
    board.pinned = note
    #expect(note.status == "shared")
    #expect(computations.value == 2, "a second parent did")
  }

  @Test func aMemoizedReadIsInvalidatedWhenTheModelBecomesSharedOrExclusive() async throws {
    let note = SharableNote(text: "n")
    let board = NoteBoard(columns: [NoteColumn(notes: [note])]).withAnchor()
    #expect(note.status == "exclusive")
    let statuses = DeadlineIterator(Observed { note.status })
    #expect(try await statuses.next("the current status") == "exclusive")
    board.pinned = note
    // Observers run before the write returns: the memo is already invalidated.
    #expect(note.status == "shared")
    #expect(try await statuses.next("shared") == "shared")
    board.columns.removeAll()
    #expect(note.status == "exclusive", "the column went, the pin stays")
    #expect(try await statuses.next("exclusive again") == "exclusive")
  }

  @Test func onChangeReceivesEachTransition() async throws {
    let transitions = EventLog()
    let note = SharableNote(text: "n", transitions: transitions)
    let board = NoteBoard(columns: [NoteColumn(notes: [note])]).withAnchor()
    #expect(note.isEditable)
    board.pinned = note
    await expectEventually("the note to become read-only") { !note.isEditable }
    board.pinned = nil
    await expectEventually("the note to become editable again") { note.isEditable }
    // Shared by a second column, then the other parent is removed.
    board.columns.append(NoteColumn(notes: [note]))
    await expectEventually("read-only while in two columns") { !note.isEditable }
    board.columns.removeFirst()
    await expectEventually("editable once the first column is gone") { note.isEditable }
    #expect(transitions.all == ["true->false", "false->true", "true->false", "false->true"])
  }
}
