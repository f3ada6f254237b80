import ArborClient
import Foundation

/// `arborctl --host ssh://… bench …` runs `arborctl bench` on the daemon's machine, through
/// ssh, with the same options: a load generator run through ssh would measure ssh (one
/// login per client, and sshd refuses more than a few at once), not the daemon. Its
/// output and exit status are the remote command's.
///
/// ```sh
/// arborctl --host ssh://ops@lab-1 bench -c 8 -n 20000   # ssh ops@lab-1 -- arborctl bench -c 8 -n 20000
/// ```
enum RemoteBench {
  /// The arguments `bench` was given, as the remote `arborctl bench` takes them: without
  /// `--host` (the remote machine is the daemon's), with the address's socket unless
  /// `--socket` was given.
  static func arguments(from commandLine: [String], address: SSHAddress) -> [String] {
    guard let bench = commandLine.firstIndex(of: "bench") else { return ["bench"] }
    var kept: [String] = []
    var index = commandLine.index(after: bench)
    while index < commandLine.endIndex {
      let argument = commandLine[index]
      if argument == "--host" {
        index += 2
        continue
      }
      if !argument.hasPrefix("--host=") { kept.append(argument) }
      index += 1
    }
    // Options given before the subcommand (arborctl --socket P bench) are the bench's too.
    let before = Array(commandLine[commandLine.startIndex..<bench].dropFirst())
    var socket: [String] = []
    if let given = before.firstIndex(of: "--socket"), before.index(after: given) < before.endIndex {
      socket = ["--socket", before[before.index(after: given)]]
    } else if let path = address.socketPath, !kept.contains("--socket"), !kept.contains(where: { $0.hasPrefix("--socket=") }) {
      socket = ["--socket", path]
    }
    return ["bench"] + socket + kept
  }

  /// Runs the remote bench with this process's standard input, output and error; returns
  /// its exit status (255: ssh could not reach the host, as ssh itself says).
  static func run(_ address: SSHAddress, command: SSHCommand, arguments: [String]) async throws -> Int32 {
    let argv = command.arguments(for: address, running: arguments)
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = argv
    return try await withCheckedThrowingContinuation { continuation in
      process.terminationHandler = { ended in continuation.resume(returning: ended.terminationStatus) }
      do {
        try process.run()
      } catch {
        process.terminationHandler = nil
        continuation.resume(throwing: error)
      }
    }
  }
}
