import ArborClient
import NIOCore
import NIOPosix

#if canImport(Glibc)
  import Glibc
#endif

/// The bytes of `arborctl bridge`: standard input to the daemon's socket, the socket to
/// standard output, as they come, through NIO (a pipe channel for standard input and output:
/// no thread of the cooperative pool waits on a read).
///
/// ```swift
/// let socket = try await ByteRelay.connect(to: "/run/arbor/counterfactd.sock")
/// switch try await ByteRelay.relay(socket) { case .inputEnded, .readerGone: exit(0); case .daemonClosed: exit(3) }
/// ```
enum ByteRelay {
  /// How the relay ended.
  enum Ending: Sendable {
    /// Standard input ended (it was passed on as the end of the socket's input), and the
    /// daemon then closed the connection.
    case inputEnded
    /// The daemon closed the connection while standard input was still open.
    case daemonClosed
    /// Standard output could not be written (its reader went away).
    case readerGone
  }

  /// One side of the relay, as its task ends.
  private enum Side: Sendable {
    case input
    case daemon(readerGone: Bool)
  }

  /// A byte channel to the first of `paths` that answers; `.cannotConnect` (with NIO's
  /// reason) when none does.
  static func connect(to paths: [String]) async throws(ArborClientError) -> NIOAsyncChannel<ByteBuffer, ByteBuffer> {
    var failure = ArborClientError.cannotConnect(path: "", reason: "no socket was given")
    for path in paths {
      do {
        return try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
          .channelOption(.allowRemoteHalfClosure, value: true)
          .connect(unixDomainSocketPath: path) { channel in
            channel.eventLoop.makeCompletedFuture {
              try NIOAsyncChannel<ByteBuffer, ByteBuffer>(
                wrappingChannelSynchronously: channel, configuration: .init(isOutboundHalfClosureEnabled: true))
            }
          }
      } catch {
        failure = .cannotConnect(path: path, reason: "\(error)")
      }
    }
    throw failure
  }

  /// Relays until one side closes: standard input's end is passed on to the daemon as the
  /// end of its input (a half-close; it goes on answering, and serving the watches), and the
  /// relay then ends when the daemon closes; the daemon's end ends it at once. Everything
  /// read from the daemon is written to standard output before it returns.
  static func relay(_ socket: NIOAsyncChannel<ByteBuffer, ByteBuffer>) async throws -> Ending {
    try await socket.executeThenClose { fromDaemon, toDaemon in
      let streams = StandardStreams()
      let standard = try await NIOPipeBootstrap(group: MultiThreadedEventLoopGroup.singleton)
        .channelOption(.allowRemoteHalfClosure, value: true)
        .takingOwnershipOfDescriptors(input: streams.input, output: streams.output) { channel in
          channel.eventLoop.makeCompletedFuture {
            try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
          }
        }
      let ending = try await standard.executeThenClose { fromInput, toOutput in
        let ending = await withTaskGroup(of: Side.self) { group -> Ending in
          group.addTask {
            do {
              for try await bytes in fromInput { try await toDaemon.write(bytes) }
            } catch {}
            toDaemon.finish()
            return .input
          }
          group.addTask {
            do {
              for try await bytes in fromDaemon {
                do {
                  try await toOutput.write(bytes)
                } catch {
                  return .daemon(readerGone: true)
                }
              }
            } catch {}
            return .daemon(readerGone: false)
          }
          switch await group.next()! {
          case .input:
            guard case .daemon(let readerGone) = await group.next()! else { return .inputEnded }
            return readerGone ? .readerGone : .inputEnded
          case .daemon(let readerGone):
            group.cancelAll()
            return readerGone ? .readerGone : .daemonClosed
          }
        }
        // What was written goes out before the channel closes: the output's close waits
        // for the writes pending.
        try? await standard.channel.close(mode: .output).get()
        return ending
      }
      await streams.flushed()
      return ending
    }
  }
}
