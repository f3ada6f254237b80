import Arbor
import ArborJSON
import Dependencies
import Foundation
import Logging
import ServiceLifecycle

/// Hosts one tree of models as a daemon: restores its last state (or builds a fresh root),
/// anchors it, and serves JSON-RPC 2.0 on a Unix socket until SIGTERM or SIGINT; then it
/// stops accepting, lets running intents finish, writes a final snapshot and returns.
///
/// ```swift
/// @main struct Counterfactd: AsyncParsableCommand {
///   @OptionGroup var options: DaemonOptions
///   func run() async throws {
///     try await ArborDaemon(name: "counterfactd", options: options) { AppModel() }.run()
///   }
/// }
/// ```
public struct ArborDaemon<Root: Model>: Sendable {
  public let name: String
  public let options: DaemonOptions
  public let paths: DaemonPaths
  let dependencies: @Sendable (inout DependencyValues) -> Void
  let makeRoot: @Sendable () -> Root

  /// - Parameters:
  ///   - name: the daemon's name: its socket and state directory are named after it.
  ///   - options: the command-line options (see ``DaemonOptions``).
  ///   - environment: where `$RUNTIME_DIRECTORY`, `$STATE_DIRECTORY` and the XDG paths are read.
  ///   - dependencies: overrides for the dependencies of every model in the tree.
  ///   - makeRoot: builds a fresh root when there is no saved state.
  public init(
    name: String, options: DaemonOptions, environment: [String: String] = ProcessInfo.processInfo.environment,
    dependencies: @escaping @Sendable (inout DependencyValues) -> Void = { _ in },
    makeRoot: @escaping @Sendable () -> Root
  ) {
    self.name = name
    self.options = options
    self.paths = DaemonPaths(name: name, options: options, environment: environment)
    self.dependencies = dependencies
    self.makeRoot = makeRoot
  }

  /// Runs the daemon until SIGTERM or SIGINT.
  public func run() async throws {
    var logger = Logger(label: name)
    logger.logLevel = Logger.Level(rawValue: options.logLevel) ?? .info
    try FileManager.default.createDirectory(atPath: paths.stateDirectory, withIntermediateDirectories: true)
    let snapshotFile = SnapshotFile(path: paths.snapshotFile)
    let anchor: ModelAnchor<Root>
    do {
      if let data = try snapshotFile.read() {
        anchor = try Root.andAnchor(restoring: data, dependencies).1
        logger.info("restored \(Root._$typeName) at revision \(anchor.revision) from \(paths.snapshotFile)")
      } else {
        anchor = makeRoot().andAnchor(dependencies).1
        logger.info("started a fresh \(Root._$typeName); no snapshot at \(paths.snapshotFile)")
      }
    } catch {
      throw DaemonStartError(
        "cannot restore \(paths.snapshotFile): \(error). Move the file away to start fresh, or restore a good record.")
    }
    let host = ModelHost(anchor: anchor, dependencies: dependencies)
    let service = DaemonService(
      name: name, host: host, options: options, paths: paths, snapshotFile: snapshotFile, logger: logger)
    let group = ServiceGroup(
      configuration: ServiceGroupConfiguration(
        services: [.init(service: service)], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
    try await group.run()
  }
}

/// Why the daemon could not start.
public struct DaemonStartError: Error, CustomStringConvertible {
  public var description: String
  init(_ description: String) { self.description = description }
}
