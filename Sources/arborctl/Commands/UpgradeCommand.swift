import ArborJSON
import ArborRPC
import ArgumentParser
import Foundation

/// `arborctl upgrade [--binary PATH]`: the daemon starts its binary again (or `PATH`) and
/// hands the new process its socket and every connection with its watches; this command's
/// own connection goes over too, and it waits until the new process answers on it.
struct UpgradeCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "upgrade",
    abstract: "Start the daemon's binary again (a new build at the same path, or --binary) and hand it every connection.",
    discussion: """
      Clients stay connected and watches go on with the next revision. The new process
      restores the state while the old one serves; under systemd it becomes the service's
      main process. The daemon refuses on a shared store; if the new process does not get
      ready, the old one serves on and the error says why. Needs the admin role. Waits until the new
      process answers, within --timeout (120 s unless given).
      """)

  @OptionGroup var connection: ConnectionOptions

  @Option(help: ArgumentHelp("The binary to start, a path on the daemon's machine (default: the file the daemon was started from).", valueName: "path"))
  var binary: String?

  /// How long the hand-over may take when `--timeout` is not given: the old process
  /// answers what it read and saves a snapshot, the new one restores it.
  static let defaultTimeout = 120.0

  func run() async throws {
    var options = connection
    if options.timeout == nil { options.timeout = Self.defaultTimeout }
    let binary = self.binary
    do {
      let (started, status) = try await options.withConnection { client in
        let started = try await client.call(DaemonUpgradeMethod.self, .init(binary: binary))
        // This connection was handed over: the new process answers it once it serves.
        while true {
          let status = try await client.call(DaemonStatus.self)
          if status.pid == Int(started.pid) { return (started, status) }
          try await Task.sleep(for: .milliseconds(50))
        }
      }
      if options.printsJSON {
        return Output.json(["pid": .int(Int64(started.pid)), "binary": .string(started.binary), "generation": .int(Int64(status.generation ?? 0)), "revision": .int(Int64(status.revision))])
      }
      print("\(Style.revision("pid \(started.pid)")) serves now (\(started.binary)), generation \(status.generation ?? 0), at revision \(status.revision)")
    } catch let failure as CommandFailure {
      throw Arborctl.fail(failure, json: options.json)
    }
  }
}
