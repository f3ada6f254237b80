import ArborClient
import ArgumentParser
import Foundation

/// `arborctl bridge [--socket PATH]`: standard input to the daemon's socket and the socket to
/// standard output, byte for byte: what `arborctl --host ssh://…` runs on the remote machine.
struct BridgeCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "bridge", abstract: "Relay standard input to the daemon's socket and the socket to standard output (what --host runs through ssh).",
    discussion: """
      Bytes go through as they are, both ways, until one side closes: as `socat STDIO UNIX-CONNECT:SOCKET` does, with arborctl's \
      rule for finding the socket (--socket, $ARBOR_SOCKET, else the only socket in the daemons' default folder) and its wait \
      for a daemon that is starting (within --timeout). The daemon sees the user who runs the bridge: over ssh, the remote \
      user, whose role it decides.

      When standard input ends, the daemon is told (the end of the socket's input): it answers what it was sent, serves the \
      watches until the reader of standard output goes away, and closes. Exits 0 then, and when the reader of standard \
      output goes away; 3 when the daemon closes the connection first (it stopped or was killed) or does not answer within \
      --timeout; 5 when the socket may not be opened.

      Example: ssh ops@build-1 arborctl bridge <<< '{"jsonrpc":"2.0","id":1,"method":"daemon.status"}'
      """)

  @OptionGroup var connection: ConnectionOptions

  func validate() throws {
    if connection.host != nil { throw ValidationError("bridge relays to a socket on this machine: --host does not apply to it") }
  }

  func run() async throws {
    // The reader of standard output (ssh's session) gone, the bridge goes too, even while
    // the daemon has nothing to write to it.
    StandardOutput.endWhenReaderGoes()
    do {
      let deadline = ContinuousClock.now + .milliseconds(Int64(connection.seconds * 1000))
      let paths = try await connection.localSocketPaths(until: deadline)
      let socket = try await connection.withTimeout(path: paths.joined(separator: ", ")) {
        try await SocketWait.connect(to: paths, until: deadline) { paths throws(ArborClientError) in try await ByteRelay.connect(to: paths) }
      }
      let path = socket.channel.remoteAddress?.pathname ?? paths.joined(separator: ", ")
      switch try await ByteRelay.relay(socket) {
      case .inputEnded, .readerGone: return
      case .daemonClosed: throw CommandFailure(.cannotConnect, "the daemon at \(path) closed the connection (it stopped or was killed)")
      }
    } catch let failure as CommandFailure {
      throw Arborctl.fail(failure, json: false)
    } catch let error as ArborClientError {
      throw Arborctl.fail(CommandFailure(error), json: false)
    } catch {
      throw Arborctl.fail(CommandFailure(.cannotConnect, "cannot relay standard input and output: \(error)"), json: false)
    }
  }
}

extension BridgeCommand: ConnectedCommand {}
