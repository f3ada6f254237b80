import ArborJSON
import ArborTesting
import Foundation
import ProcessSlots
import Subprocess
import Testing

/// `-o/--output` on the commands that print one answer, `arborctl version`, and figures in
/// human units where people read them.
@Suite(.startsProcesses) struct ArborctlPrintOptionsTests {
  @Test func outputChoosesTheFormatOfOneAnswerEvenWhenPiped() async throws {
    try await withDaemon { daemon, _ in
      let yaml = try await ArborctlTests.arborctl(["status", "-o", "yaml"], socket: daemon.socket)
      #expect(yaml.status == .exited(0), "\(yaml.error)")
      #expect(yaml.output.hasPrefix("---\n") && yaml.output.contains("\nname: counterfactd\n"), "\(yaml.output)")
      // Piped, schema is one JSON line; -o text gives the overview people read.
      let text = try await ArborctlTests.arborctl(["schema", "-o", "text"], socket: daemon.socket)
      #expect(text.status == .exited(0) && text.output.contains("Methods (role needed):"), "\(text.output.prefix(300))")
      let piped = try await ArborctlTests.arborctl(["schema"], socket: daemon.socket)
      #expect(piped.output.split(separator: "\n").count == 1 && piped.json?["openrpc"] != nil, "\(piped.output.prefix(200))")
      let get = try await ArborctlTests.arborctl(["get", "/", "--output", "text"], socket: daemon.socket)
      #expect(get.output.hasPrefix("revision 0\n"), "\(get.output)")
      // Before the command too, as the other shared options.
      let leading = try await ArborctlTests.arborctl(["-o", "json", "get", "/counters"], socket: daemon.socket)
      #expect(leading.json?["value"] == [], "\(leading.output)")
      let both = try await ArborctlTests.arborctl(["get", "/", "--json", "-o", "yaml"], socket: daemon.socket)
      #expect(both.status == .exited(2) && both.error.contains("--json is --output json"), "\(both.error)")
      let wrong = try await ArborctlTests.arborctl(["status", "-o", "xml"], socket: daemon.socket)
      #expect(wrong.status == .exited(2), "\(wrong.error)")
    }
  }

  @Test func versionNamesArborctlAndTheDaemonThatAnswers() async throws {
    try await withDaemon { daemon, _ in
      let json = try await ArborctlTests.arborctl(["version"], socket: daemon.socket)
      #expect(json.status == .exited(0), "\(json.error)")
      #expect(json.json?["name"] == "arborctl" && json.json?["protocol"] == 1, "\(json.output)")
      #expect(json.json?["daemon"]?["name"] == "counterfactd" && json.json?["daemon"]?["root"] == "AppModel", "\(json.output)")
      let text = try await ArborctlTests.arborctl(["version", "-o", "text"], socket: daemon.socket)
      #expect(text.output.hasPrefix("arborctl ") && text.output.contains("\ncounterfactd "), "\(text.output)")
    }
    // No daemon: arborctl's own version still, and why not the daemon's.
    let alone = try await ArborctlTests.arborctl(["version", "-o", "text"], socket: "/nonexistent/counterfactd.sock")
    #expect(alone.status == .exited(0), "\(alone.error)")
    #expect(alone.output.split(separator: "\n").count == 1 && alone.output.hasPrefix("arborctl "), "\(alone.output)")
    #expect(alone.error.contains("no daemon's version"), "\(alone.error)")
  }

  @Test func statusOnATerminalSaysUptimeAndSizesInUnits() async throws {
    try await withDaemon { daemon, _ in
      let terminal = try await ArborctlTests.onTerminal([["status"]], socket: daemon.socket)
      let lines = terminal.output.split(whereSeparator: \.isNewline).map(String.init)
      let uptime = lines.first { $0.hasPrefix("uptime:") } ?? ""
      #expect(uptime.range(of: #"uptime:\s+\d+(\.\d)?s$"#, options: .regularExpression) != nil, "\(uptime)")
      let bytes = lines.first { $0.hasPrefix("journal.bytes:") } ?? ""
      #expect(bytes.range(of: #"journal.bytes:\s+[0-9.]+ (B|KiB|MiB)$"#, options: .regularExpression) != nil, "\(bytes)")
      // JSON keeps the numbers.
      let json = try await ArborctlTests.arborctl(["status"], socket: daemon.socket)
      #expect(json.json?["uptime"]?.doubleValue != nil && json.json?["journal"]?["bytes"]?.intValue != nil, "\(json.output)")
    }
  }
}
