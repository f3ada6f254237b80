import ArborTesting
import Foundation
import ProcessSlots
import Subprocess
import SystemPackage
import Testing

/// The inspector page in a real browser: headless Chromium (Debian's chromium and
/// chromium-driver, driven through selenium) loads `/` from a real `counterfactd` and
/// `Tests/Browser/inspector_check.py` checks the tree, the timeline, time travel, a wrong
/// token and the intent forms against what the Unix socket says. The screenshot is kept in
/// `.build/test-artifacts/inspector.png`.
@Suite(.startsProcesses) struct InspectorBrowserTests {
  static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

  @Test func thePageShowsTheTreeTravelsInTimeAndCallsIntentsInChromium() async throws {
    let missing = ["/usr/bin/chromium", "/usr/bin/chromedriver"].filter { !FileManager.default.isExecutableFile(atPath: $0) }
    guard missing.isEmpty else {
      Issue.record("\(missing.joined(separator: " and ")) missing: `make prerequisites` installs Debian's chromium and chromium-driver")
      return
    }
    let tokenFile = try InspectorWebSocketTests.tokenFile()
    try await withHTTPDaemon(arguments: ["--http-token-file", tokenFile]) { daemon, port in
      let artifacts = Self.root.appendingPathComponent(".build/test-artifacts").path
      try FileManager.default.createDirectory(atPath: artifacts, withIntermediateDirectories: true)
      let screenshot = artifacts + "/inspector.png"
      try? FileManager.default.removeItem(atPath: screenshot)
      let script = Self.root.appendingPathComponent("Tests/Browser/inspector_check.py").path
      let result = try await withDeadline("the browser check of the inspector", seconds: 240) {
        try await run(
          .name("python3"),
          arguments: [
            script, "--url", "http://127.0.0.1:\(port)/", "--socket", daemon.socket, "--token", InspectorWebSocketTests.token,
            "--screenshot", screenshot,
          ], output: .string(limit: 1 << 20), error: .string(limit: 1 << 20))
      }
      #expect(
        result.terminationStatus == .exited(0),
        "inspector_check.py: \(result.standardOutput)\n\(result.standardError)\ndaemon log:\n\(daemon.log.suffix(3000))")
      #expect(FileManager.default.fileExists(atPath: screenshot), "no screenshot at \(screenshot)")
    }
  }
}
