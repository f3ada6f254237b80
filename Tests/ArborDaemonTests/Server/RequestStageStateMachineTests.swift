import ArborRPC
import Testing

@testable import ArborDaemon

/// ``RequestStage/StateMachine`` alone: the rules of a connection's requests, event by
/// event, with no channel.
@Suite struct RequestStageStateMachineTests {
  private typealias Machine = RequestStage.StateMachine

  private static func line(_ id: Int, large: Bool = false) -> InboundLine {
    .parsed(RPCInbound(line: Array(#"{"jsonrpc":"2.0","id":\#(id),"method":"m"}"#.utf8)), large: large, mark: nil)
  }

  /// Takes every line that may start, as the stage does, and says what follows.
  private static func startAll(_ machine: inout Machine) -> (started: Int, then: Machine.Action) {
    var started = 0
    while machine.nextLine() != nil { started += 1 }
    return (started, machine.linesStarted())
  }

  @Test func aLineReadStartsAtOnceAndTheNextReadGoesThrough() {
    var machine = Machine(limit: 4)
    #expect(machine.lineRead(Self.line(1)) == .startWaiting)
    #expect(Self.startAll(&machine).started == 1)
    #expect(machine.readRequested() == .read)
    #expect(machine.phase == .serving(readHeld: false))
  }

  /// At the in-flight limit, lines wait and a read is held; once a request finishes, the
  /// next line starts and the held read is made.
  @Test func theInFlightLimitHoldsLinesAndTheRead() {
    var machine = Machine(limit: 1)
    _ = machine.lineRead(Self.line(1))
    #expect(machine.nextLine() != nil)
    machine.requestStarted()
    #expect(machine.lineRead(Self.line(2)) == .startWaiting)
    #expect(Self.startAll(&machine) == (0, .none))
    #expect(machine.waitingCount == 1)
    #expect(machine.readRequested() == .none)
    #expect(machine.phase == .serving(readHeld: true))
    #expect(machine.requestFinished() == .startWaiting)
    #expect(Self.startAll(&machine) == (1, .read))
    #expect(machine.phase == .serving(readHeld: false))
    #expect(machine.running == 0)
  }

  /// A held place (a batch in slices, an off-loop encoding) keeps later lines waiting
  /// whatever the limit, until it is released.
  @Test func aHeldPlaceKeepsLaterLinesWaiting() {
    var machine = Machine(limit: 64)
    machine.hold()
    _ = machine.lineRead(Self.line(1))
    _ = machine.lineRead(Self.line(2))
    #expect(Self.startAll(&machine).started == 0)
    #expect(machine.release() == .startWaiting)
    #expect(Self.startAll(&machine).started == 2)
    #expect(machine.holds == 0 && machine.running == 0)
  }

  /// Half-closed with a request running: nothing ends until it finishes; then the outbox
  /// finishes (unless watched).
  @Test func inputClosedEndsOnceTheRunningRequestsAreDone() {
    var machine = Machine(limit: 4)
    machine.requestStarted()
    #expect(machine.inputClosed() == .startWaiting)
    #expect(Self.startAll(&machine) == (0, .none))
    // A second end of input, and reads and lines after it, change nothing.
    #expect(machine.inputClosed() == .none)
    #expect(machine.lineRead(Self.line(1)) == .none)
    #expect(machine.readRequested() == .none)
    #expect(machine.requestFinished() == .startWaiting)
    #expect(Self.startAll(&machine) == (0, .finishUnlessWatched))
  }

  /// A line over the limit is reported at once; its error is sent once, after the running
  /// requests, and the memory the framer held is given back once the places are released.
  @Test func aLineTooLongIsAnsweredOnceAfterTheRunningRequests() {
    var machine = Machine(limit: 4)
    machine.hold()
    #expect(machine.lineRead(.tooLong(limit: 16)) == .lineTooLong(limit: 16))
    #expect(machine.phase == .inputClosed(pendingErrorLimit: 16))
    #expect(Self.startAll(&machine) == (0, .none))
    #expect(machine.release() == .trimAndStartWaiting(marks: []))
    #expect(Self.startAll(&machine) == (0, .sendLineTooLongAndFinish(limit: 16)))
    #expect(machine.linesStarted() == .finishUnlessWatched)
  }

  /// A large line asks for a trim when the places are released, once.
  @Test func largeWorkIsTrimmedWhenThePlacesAreReleased() {
    var machine = Machine(limit: 4)
    _ = machine.lineRead(Self.line(1, large: true))
    #expect(machine.nextLine() != nil)
    machine.lineStarted(large: true, mark: nil)
    machine.hold()
    machine.hold()
    #expect(machine.release() == .startWaiting)
    #expect(machine.release() == .trimAndStartWaiting(marks: []))
    machine.hold()
    #expect(machine.release() == .startWaiting)
    #expect(!machine.trimWhenDone)
  }

  /// The end drops what waits and gives back large work's memory; a mark kept after the
  /// end is let go of at once.
  @Test func theEndDropsWhatWaitsAndTrims() throws {
    var machine = Machine(limit: 1)
    machine.hold()
    _ = machine.lineRead(Self.line(1))
    machine.lineStarted(large: true, mark: nil)
    #expect(machine.end() == .trim(marks: []))
    #expect(machine.isEnded)
    #expect(machine.waitingCount == 0)
    #expect(machine.nextLine() == nil)
    #expect(machine.end() == .none)
    #expect(machine.lineRead(Self.line(2)) == .none)
    #expect(machine.linesStarted() == .none)
    if let mark = ArenaMark.here() {
      let action = machine.keep(mark)
      #expect(action == .trim(marks: [mark]))
      MemoryTrim.request(releasing: [mark])
    }
  }

  /// Marks kept while serving are handed to the trim when the places are released.
  @Test func keptMarksGoToTheTrim() throws {
    var machine = Machine(limit: 1)
    machine.hold()
    guard let mark = ArenaMark.here() else { return }
    #expect(machine.keep(mark) == .none)
    #expect(machine.release() == .trimAndStartWaiting(marks: [mark]))
    MemoryTrim.request(releasing: [mark])
  }
}
