import ArborClient
import ArborTesting
import Foundation
import ProcessSlots
import Subprocess
import SystemPackage
import Testing

/// The unit files in `systemd/`: their exposure as `systemd-analyze security` scores it
/// (offline, on the files themselves), and the daemon running under the rule the units
/// set with `MemoryDenyWriteExecute=yes`.
@Suite(.startsProcesses) struct UnitTests {
  static let units = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("systemd").path

  /// The overall exposure (0 safe … 10 unsafe) and the whole report.
  static func exposure(of unit: String) async throws -> (Double, String) {
    let result = try await withDeadline("systemd-analyze security \(unit)") {
      try await run(
        .name("systemd-analyze"), arguments: ["security", "--offline=true", units + "/" + unit],
        output: .string(limit: 1 << 20), error: .string(limit: 1 << 20))
    }
    let report = result.standardOutput + result.standardError
    guard let line = report.split(separator: "\n").first(where: { $0.contains("Overall exposure level") }),
      let score = line.split(separator: " ").compactMap({ Double($0) }).first
    else { throw HarnessError("no exposure level in:\n\(report)") }
    return (score, report)
  }

  // The user unit is left out: scored offline it reads as a root service, and a user
  // manager cannot apply most of these settings anyway.
  @Test(arguments: [("counterfactd.service", 1.5), ("template.service", 1.0), ("todosd.service", 1.0)])
  func exposureIsLow(unit: String, atMost: Double) async throws {
    let (score, report) = try await Self.exposure(of: unit)
    #expect(score <= atMost, "\(unit): \(score)\n\(report)")
    #expect(!report.contains("✗ NoNewPrivileges="), "\(report)")
  }

  @Test func theSystemServiceIsHardenedWhereItCanBe() async throws {
    let (_, report) = try await Self.exposure(of: "counterfactd.service")
    for setting in ["CapabilityBoundingSet=~CAP_SYS_ADMIN", "SystemCallFilter=~@privileged", "MemoryDenyWriteExecute=", "ProtectSystem=", "RestrictNamespaces=~user"] {
      #expect(report.contains("✓ \(setting)"), "\(setting) is not set:\n\(report)")
    }
  }

  /// `MemoryDenyWriteExecute=yes` is `prctl(PR_SET_MDWE, PR_MDWE_REFUSE_EXEC_GAIN)`: set
  /// here before the daemon is executed, it must start, serve and stop as usual.
  @Test func theDaemonRunsWithNoWritableExecutableMemory() async throws {
    let directory = try DaemonHarness.temporaryDirectory()
    let script = """
      import ctypes, os, sys
      libc = ctypes.CDLL(None, use_errno=True)
      if libc.prctl(65, 1, 0, 0, 0) != 0 or libc.prctl(66, 0, 0, 0, 0) != 1:
          sys.exit("PR_SET_MDWE failed: errno %d" % ctypes.get_errno())
      os.execv(sys.argv[1], sys.argv[1:])
      """
    let socket = directory + "/d.sock"
    let logPath = directory + "/daemon.log"
    let log = try FileDescriptor.open(
      FilePath(logPath), .writeOnly, options: [.create, .append], permissions: [.ownerReadWrite, .groupRead, .otherRead])
    let result = try await run(
      .name("python3"),
      arguments: ["-c", script, DaemonHarness.binary(), "--socket", socket, "--state-dir", directory + "/state"],
      input: .none, output: .discarded, error: .fileDescriptor(log, closeAfterSpawningProcess: true)
    ) { execution -> String in
      let client = try await withDeadline("the daemon under MDWE to listen", seconds: 30) {
        while true {
          if let connection = try? await ArborConnection.connect(to: socket) { return connection }
          try await Task.sleep(for: .milliseconds(20))
        }
      }
      try await client.call("intent.call", ["intent": "addButtonTapped"])
      let counters = try await client.call("state.get", ["path": "/counters"])
      try execution.send(signal: .terminate)
      return "\(counters)"
    }
    let logged = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
    #expect(result.terminationStatus == .exited(0), "\(logged)")
    #expect(result.closureResult.contains("counter"), "the intent ran: \(result.closureResult)")
    #expect(logged.contains("saved revision 1"), "and the stop saved its snapshot: \(logged)")
  }
}

/// `systemd-analyze verify` on every unit, with the binaries the units name replaced by
/// the one just built (verify checks that `ExecStart=` can run) and the template filled in.
@Suite(.startsProcesses) struct UnitVerifyTests {
  @Test func everyUnitVerifies() async throws {
    let directory = try DaemonHarness.temporaryDirectory()
    let binary = DaemonHarness.binary()
    func copy(_ unit: String, as name: String, _ replacements: [(String, String)]) throws {
      var text = try String(contentsOfFile: UnitTests.units + "/" + unit, encoding: .utf8)
      for (from, to) in replacements { text = text.replacingOccurrences(of: from, with: to) }
      try text.write(toFile: directory + "/" + name, atomically: true, encoding: .utf8)
    }
    try copy("counterfactd.service", as: "counterfactd.service", [("/usr/local/bin/counterfactd", binary)])
    try copy("counterfactd.socket", as: "counterfactd.socket", [])
    try copy("counterfactd-http.socket", as: "counterfactd-http.socket", [])
    try copy("template.service", as: "mydaemon.service", [("/usr/local/bin/MYDAEMON", binary), ("MYDAEMON", "mydaemon")])
    try copy("counterfactd.socket", as: "mydaemon.socket", [("counterfactd", "mydaemon")])
    try FileManager.default.createDirectory(atPath: directory + "/user", withIntermediateDirectories: true)
    try copy("user/counterfactd.service", as: "user/counterfactd.service", [("%h/.local/bin/counterfactd", binary)])
    try copy("user/counterfactd.socket", as: "user/counterfactd.socket", [])
    let todosd = URL(fileURLWithPath: binary).deletingLastPathComponent().appendingPathComponent("todosd").path
    try copy("todosd.service", as: "todosd.service", [("/usr/local/bin/todosd", todosd)])
    try copy("todosd.socket", as: "todosd.socket", [])
    try copy("user/todosd.service", as: "user/todosd.service", [("%h/.local/bin/todosd", todosd)])
    try copy("user/todosd.socket", as: "user/todosd.socket", [])
    for files in [
      ["counterfactd.socket", "counterfactd-http.socket", "counterfactd.service", "mydaemon.service", "mydaemon.socket"],
      ["user/counterfactd.socket", "user/counterfactd.service"],
      ["todosd.socket", "todosd.service"],
      ["user/todosd.socket", "user/todosd.service"],
    ] {
      let result = try await withDeadline("systemd-analyze verify \(files)") {
        try await run(
          .name("systemd-analyze"), arguments: Arguments(["verify", "--man=no"] + files.map { directory + "/" + $0 }),
          workingDirectory: .init(directory), output: .string(limit: 1 << 16), error: .string(limit: 1 << 16))
      }
      #expect(result.terminationStatus == .exited(0), "\(files): \(result.standardError)")
      #expect(result.standardError.isEmpty, "\(files): \(result.standardError)")
    }
  }
}
