import Arbor
import ArborJSON
import ArborStore
import Foundation
import Logging
import NIOCore
import NIOEmbedded
import Synchronization

@testable import ArborDaemon

/// The small tree the pipeline tests host.
@Model struct PipelineModel {
  var value = 0

  /// Adds `amount`: a synchronous intent, handled on the connection's event loop.
  @Intent func add(amount: Int) { value += amount }

  /// Waits, holding nothing, until a file exists at `path`, then adds `amount`: an
  /// `async` intent, which the connection runs in a task.
  @Intent func addWhenFileExists(amount: Int, path: String) async {
    while !FileManager.default.fileExists(atPath: path) {
      try? await Task.sleep(for: .milliseconds(2))
    }
    value += amount
  }
}

/// A daemon's parts (``DaemonParts``) over a ``PipelineModel`` and a store in a temporary
/// directory, with no socket: its connections are testing channels that get the daemon's
/// own pipeline (``DaemonParts/accept(_:role:peer:options:)``).
final class HostedPipeline: Sendable {
  let parts: DaemonParts
  let options: DaemonOptions
  let directory: String
  private let store: Store

  /// `arguments`: the daemon's command line (`--max-in-flight 1`, …).
  init(_ arguments: [String] = []) throws {
    directory = FileManager.default.temporaryDirectory.appendingPathComponent("arbor-pipeline-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    options = try DaemonOptions.parse(arguments)
    let paths = DaemonPaths(socket: directory + "/pipeline.sock", stateDirectory: directory)
    store = try Store.open(
      at: paths.storeFile, root: PipelineModel._$typeName, schema: PipelineModel.schemaHash, fsync: options.fsync)
    let host = ModelHost(anchor: PipelineModel().andAnchor().1, undoHistory: UndoHistory(), undoDepth: 10, dependencies: { _ in })
    var logger = Logger(label: "HostedPipeline")
    logger.logLevel = .error
    parts = DaemonParts(
      name: "pipeline", host: host, options: options, commandLine: options, logLevel: SharedLogLevel(.error), paths: paths, adopted: nil,
      store: store, snapshotRevisions: [], journalledThrough: 0, base: nil, restoredState: nil, logger: logger)
  }

  /// A new connection on `loop` (connections given one loop share it, as on a daemon's
  /// event loop).
  func connect(role: Role = .admin, loop: NIOAsyncTestingEventLoop = NIOAsyncTestingEventLoop()) async throws -> PipelineConnection {
    let reads = ReadCounter()
    let (parts, options) = (self.parts, self.options)
    let channel = try await NIOAsyncTestingChannel(loop: loop) { channel in
      try channel.pipeline.syncOperations.addHandler(reads)
      try parts.accept(channel, role: role, peer: "test", options: options)
    }
    try await channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1))
    return PipelineConnection(channel: channel, reads: reads)
  }

  /// The tree's value now.
  var value: Int64? { try? parts.host.state().value["value"]?.intValue }

  /// Stops the journal and closes the store, then removes the directory.
  func close() async {
    parts.journal.stop()
    await store.close()
    try? FileManager.default.removeItem(atPath: directory)
  }
}

/// One connection of a ``HostedPipeline``: what a client sends goes in as reads, what the
/// pipeline writes is collected as reply lines.
final class PipelineConnection: Sendable {
  let channel: NIOAsyncTestingChannel
  /// The reads the pipeline let through to the socket.
  let reads: ReadCounter
  private let written = Mutex(WrittenLines())

  init(channel: NIOAsyncTestingChannel, reads: ReadCounter) {
    self.channel = channel
    self.reads = reads
  }

  var loop: NIOAsyncTestingEventLoop { channel.testingEventLoop }

  /// Sends `text` as one read, then runs what it queued on the loop.
  func send(_ text: String) async throws {
    try await channel.writeInbound(ByteBuffer(string: text))
    await loop.run()
  }

  /// The client half-closes: it will send nothing more.
  func closeInput() async throws {
    let channel = self.channel
    try await loop.executeInContext { channel.pipeline.syncOperations.fireUserInboundEventTriggered(ChannelEvent.inputClosed) }
    await loop.run()
  }

  /// The socket asks for more input, as NIO does after each read.
  func askToRead() async throws {
    let channel = self.channel
    try await loop.executeInContext { channel.pipeline.read() }
  }

  /// The reply lines written so far (after collecting what is waiting).
  func replies() async throws -> [JSONValue] {
    try await collect()
    return written.withLock { $0.lines }
  }

  /// The writes that carried them.
  func writes() async throws -> Int {
    try await collect()
    return written.withLock { $0.writes }
  }

  /// Waits, moving the loop's clock on (for a batch's next slice), until `count` reply
  /// lines are written.
  @discardableResult
  func replies(_ count: Int) async throws -> [JSONValue] {
    try await eventually("\(count) replies") {
      await self.loop.advanceTime(by: .milliseconds(1))
      return try await self.replies().count >= count
    }
    return try await replies()
  }

  /// Waits, moving the loop's clock on, until the connection is closed.
  func waitUntilClosed() async throws {
    try await eventually("the connection closed") {
      await self.loop.advanceTime(by: .milliseconds(1))
      return !self.channel.isActive
    }
  }

  private func collect() async throws {
    while let buffer = try await channel.readOutbound(as: ByteBuffer.self) {
      written.withLock { $0.append(buffer) }
    }
  }
}
