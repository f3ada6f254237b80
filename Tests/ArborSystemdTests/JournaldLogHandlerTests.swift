@testable import ArborSystemd
import Logging
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// The journal fields of a log entry: names, priorities, metadata as upper-case fields.
@Suite struct JournaldLogHandlerTests {
  @Test func anEntryHasItsStandardFieldsThenItsMetadata() {
    let fields = JournaldLogHandler.fields(
      message: "restored AppModel\nat revision 4", level: .warning, identifier: "counterfactd", label: "counterfactd",
      metadata: ["request-id": "7", "revision": .stringConvertible(12), "MESSAGE": "shadow", "_private": "x"],
      file: "ArborDaemon/Daemon/ArborDaemon.swift", function: "run()", line: 42)
    #expect(fields.map(\.0) == ["MESSAGE", "PRIORITY", "SYSLOG_IDENTIFIER", "LOGGER", "CODE_FILE", "CODE_LINE", "CODE_FUNC", "PRIVATE", "REQUEST_ID", "REVISION"])
    #expect(fields[0].1 == "restored AppModel\nat revision 4", "newlines are kept: the native protocol carries them")
    #expect(fields[1].1 == "4")
    #expect(fields[5].1 == "42")
    #expect(fields.first { $0.0 == "REQUEST_ID" }?.1 == "7")
    #expect(!fields.contains { $0.0 == "MESSAGE" && $0.1 == "shadow" }, "metadata cannot replace a standard field")
  }

  @Test(arguments: [
    (Logger.Level.trace, 7), (.debug, 7), (.info, 6), (.notice, 5), (.warning, 4), (.error, 3), (.critical, 2),
  ])
  func levelsMapToSyslogPriorities(level: Logger.Level, priority: Int) {
    #expect(JournaldLogHandler.priority(level) == priority)
  }

  @Test func metadataKeysBecomeFieldNamesJournaldKeeps() {
    #expect(JournaldLogHandler.fieldName("request-id") == "REQUEST_ID")
    #expect(JournaldLogHandler.fieldName("peer.uid") == "PEER_UID")
    #expect(JournaldLogHandler.fieldName("_cursor") == "CURSOR", "a leading underscore is journald's own")
    #expect(JournaldLogHandler.fieldName("9lives") == "LIVES", "a field cannot start with a digit")
    #expect(JournaldLogHandler.fieldName("---") == nil)
    #expect(JournaldLogHandler.fieldName("é") == nil)
  }

  @Test func withoutJournalStreamStandardErrorIsNotTheJournal() {
    #expect(!JournalStream.isStandardError || getenv("JOURNAL_STREAM") != nil)
  }
}
