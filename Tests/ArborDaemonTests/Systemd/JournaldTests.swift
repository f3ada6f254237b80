import ArborTesting
import Foundation
import ProcessSlots
import Subprocess
import Testing

/// Logging to journald, without journald: the daemon runs in a mount namespace of its own
/// (`unshare -m`) whose `/run` is a fresh tmpfs, where a Python script binds
/// `/run/systemd/journal/socket` (journald's native socket) and reads what libsystemd
/// sends. With `$JOURNAL_STREAM` naming the daemon's standard error, entries arrive
/// there with their fields, and standard error stays empty.
@Suite(.startsProcesses) struct JournaldTests {
  static let script = #"""
    import json, os, signal, socket, struct, subprocess, sys, time
    binary, directory, extra = sys.argv[1], sys.argv[2], sys.argv[3:]
    subprocess.run(["mount", "-t", "tmpfs", "tmpfs", "/run"], check=True)
    os.makedirs("/run/systemd/journal")
    journal = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    journal.bind("/run/systemd/journal/socket")
    journal.settimeout(0.2)
    stderr = open(directory + "/stderr.log", "w")
    status = os.fstat(stderr.fileno())
    environment = dict(os.environ, JOURNAL_STREAM="%d:%d" % (status.st_dev, status.st_ino))
    daemon = subprocess.Popen([binary, "--socket", directory + "/d.sock", "--state-dir", directory + "/state", "--log-level", "debug"] + extra,
                              stderr=stderr, stdout=subprocess.DEVNULL, env=environment)
    def parse(data):
        # journald's native protocol: KEY=value lines, or for a value that holds a newline
        # KEY, a newline, its length (64-bit little-endian), the value and a newline.
        fields, binary, index = {}, [], 0
        while index < len(data):
            end = data.index(b"\n", index)
            line = data[index:end]
            if b"=" in line:
                key, value = line.split(b"=", 1)
                index = end + 1
            else:
                key = line
                size = struct.unpack("<Q", data[end + 1:end + 9])[0]
                value = data[end + 9:end + 9 + size]
                index = end + 9 + size + 1
                binary.append(key.decode())
            fields[key.decode()] = value.decode()
        fields["__BINARY"] = ",".join(binary)
        return fields
    entries, deadline, stopped = [], time.time() + 20, False
    while time.time() < deadline:
        try:
            entries.append(parse(journal.recv(1 << 20)))
        except socket.timeout:
            pass
        if not stopped and any("serving" in entry.get("MESSAGE", "") for entry in entries):
            daemon.send_signal(signal.SIGTERM)
            stopped = True
        if stopped and daemon.poll() is not None and any("saved revision" in entry.get("MESSAGE", "") for entry in entries):
            break
    daemon.kill()
    print(json.dumps(entries))
    """#

  /// Runs `binary` under the script; returns the entries journald would have got.
  static func journalEntries(binary: String, directory: String, extra: [String] = []) async throws -> [[String: String]] {
    let result = try await withDeadline("the daemon in its own mount namespace", seconds: 60) {
      try await run(
        .name("unshare"), arguments: Arguments(["-m", "--propagation", "private", "python3", "-c", Self.script, binary, directory] + extra),
        output: .string(limit: 1 << 22), error: .string(limit: 1 << 16))
    }
    #expect(result.terminationStatus == .exited(0), "\(result.standardError)")
    return try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [[String: String]] ?? []
  }

  @Test func aValueWithNewlinesTravelsInTheBinarySafeForm() async throws {
    let directory = try DaemonHarness.temporaryDirectory()
    let text = "first line\nsecond line with = and \u{00e9}\n\nafter an empty line"
    let entries = try await Self.journalEntries(binary: DaemonHarness.fixtureBinary(), directory: directory, extra: ["--say", text])
    let said = try #require(entries.first { $0["MESSAGE"]?.hasPrefix("first line") == true }, "\(entries)")
    #expect(said["MESSAGE"] == text, "the value arrives whole")
    #expect(said["NOTE"] == text, "metadata too")
    #expect(said["PRIORITY"] == "5")
    #expect(said["__BINARY"]?.split(separator: ",").contains("MESSAGE") == true, "sent with its length, not as a line: \(said)")
    #expect(said["__BINARY"]?.split(separator: ",").contains("PRIORITY") == false, "one-line values stay KEY=value")
  }

  @Test func entriesReachJournaldWithTheirFieldsWhenStandardErrorIsTheJournal() async throws {
    let directory = try DaemonHarness.temporaryDirectory()
    let entries = try await Self.journalEntries(binary: DaemonHarness.binary(), directory: directory)
    let serving = try #require(entries.first { $0["MESSAGE"]?.hasPrefix("serving AppModel") == true }, "\(entries)")
    #expect(serving["PRIORITY"] == "6")
    #expect(serving["SYSLOG_IDENTIFIER"] == "counterfactd")
    #expect(serving["LOGGER"] == "counterfactd")
    #expect(serving["CODE_FILE"]?.hasSuffix("SocketServer.swift") == true, "\(serving)")
    #expect(Int(serving["CODE_LINE"] ?? "") ?? 0 > 0)
    #expect(serving["CODE_FUNC"]?.isEmpty == false)
    // swift-service-lifecycle logs with metadata: each key becomes an upper-case field.
    #expect(entries.contains { $0.keys.contains { $0.hasPrefix("SL_") } }, "\(entries.map(\.keys))")
    #expect(entries.contains { $0["MESSAGE"]?.hasPrefix("saved revision") == true && $0["PRIORITY"] == "6" })
    let stderr = (try? String(contentsOfFile: directory + "/stderr.log", encoding: .utf8)) ?? ""
    #expect(!stderr.contains("serving AppModel"), "with the journal, nothing goes to standard error: \(stderr)")
  }
}
