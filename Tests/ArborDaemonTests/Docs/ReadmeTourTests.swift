import ArborTesting
import Foundation
import ProcessSlots
import Subprocess
import Testing

/// The README's in-process tour is what `counterfact-tour` prints, line for line (model
/// ids aside, which are new at each run), and its notes name the revisions they describe.
@Suite(.startsProcesses) struct ReadmeTourTests {
  static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

  /// Model ids (16 hexadecimal digits) replaced by a placeholder.
  static func withoutIDs(_ text: String) -> String {
    text.replacingOccurrences(of: "[0-9a-f]{16}", with: "<id>", options: .regularExpression)
      .replacingOccurrences(of: "sha256:[0-9a-f]+…", with: "sha256:<hash>…", options: .regularExpression)
  }

  @Test func theTourPrintsWhatTheReadmeShows() async throws {
    let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
    guard let heading = readme.range(of: "## The in-process tour"),
      let open = readme.range(of: "\n```\n", range: heading.upperBound..<readme.endIndex),
      let close = readme.range(of: "\n```\n", range: open.upperBound..<readme.endIndex)
    else {
      Issue.record("the README has no tour block")
      return
    }
    let shown = String(readme[open.upperBound..<close.lowerBound])
    let binary = URL(fileURLWithPath: DaemonHarness.binary()).deletingLastPathComponent().appendingPathComponent("counterfact-tour").path
    let result = try await withDeadline("counterfact-tour to run") {
      try await run(.path(.init(binary)), output: .string(limit: 1 << 20), error: .string(limit: 1 << 16))
    }
    #expect(result.terminationStatus == .exited(0), "\(result.standardError)")
    let printed = Self.withoutIDs(result.standardOutput).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    let expected = Self.withoutIDs(shown).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    for (index, line) in expected.enumerated() {
      let actual = index < printed.count ? printed[index] : "(nothing)"
      #expect(actual == line, "README tour line \(index + 1)")
    }
    // The note under the block names the two-write transaction by its revision.
    let twoWrites = printed.compactMap { line -> String? in
      line.hasPrefix("r") ? String(line.prefix { $0 != " " }) : nil
    }
    let counts = Dictionary(twoWrites.map { ($0, 1) }, uniquingKeysWith: +)
    let transaction = try #require(counts.first { $0.value == 2 }?.key, "no revision with two writes in \(printed)")
    #expect(readme.contains("`\(transaction)` is a\n  `node.transaction { }` with two writes"), "the README names another revision than \(transaction)")
  }
}
