import ArborClient
import ArborJSON
import ArborLoad
import ArborRPC
import ArgumentParser
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// `arborctl bench`: a load generator like redis-benchmark. Prints requests per second
/// and latency percentiles of `state.get` (by default: it changes nothing) or of one
/// intent, named with `--intent` (each request then commits the intent's writes).
///
/// ```sh
/// arborctl bench                                   # 50 clients, 100,000 state.get of /
/// arborctl bench -c 1 -n 20000 --target /counters/0/counter --intent incrementTapped
/// arborctl bench -c 8 -P 16 --target /counters
/// arborctl bench -n 1000 | jq .p99Ms
/// ```
struct BenchCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "bench", abstract: "Load the daemon like redis-benchmark: requests per second and latency percentiles.",
    discussion: """
      Each of the --clients connections keeps --pipeline requests in flight until --requests have been answered in all. The first request is a normal call that checks the target and the intent (a mistake exits 1 with the daemon's error, before any load); the other requests are sent by a load generator built like redis-benchmark (one thread, non-blocking sockets, epoll), and the figures are theirs: latencies in milliseconds, from writing a request until reading its reply.

      What it writes: nothing by default (each request is a state.get of --target, / unless given). With --intent NAME, each request calls that intent on --target and commits its writes to the daemon's live state, journal included: --requests N makes N revisions.

      On a terminal: a progress line, then a table. Piped, or with --json: one JSON object.
      """)

  /// What each request calls.
  enum Method: ExpressibleByArgument, CaseIterable {
    case intentCall, stateGet

    var method: ArborMethod { self == .intentCall ? .intentCall : .stateGet }
    var rawValue: String { method.rawValue }

    init?(argument: String) {
      guard let found = Self.allCases.first(where: { $0.rawValue == argument }) else { return nil }
      self = found
    }

    static var allValueStrings: [String] { allCases.map(\.rawValue) }
  }

  // The options with a default are optional, their default said in their help: so the
  // manual page (which does not print defaults) and --help say it once each.
  @Option(name: [.customShort("c"), .customLong("clients")], help: ArgumentHelp("Connections, each a client of its own (default: 50).", valueName: "clients"))
  var givenClients: Int?

  @Option(name: [.customShort("n"), .customLong("requests")], help: ArgumentHelp("Requests in all, the check call included (default: 100000).", valueName: "requests"))
  var givenRequests: Int?

  @Option(name: [.customShort("P"), .customLong("pipeline")], help: ArgumentHelp("Requests each client keeps in flight (default: 1).", valueName: "pipeline"))
  var givenPipeline: Int?

  @Option(
    name: .customLong("target"),
    help: ArgumentHelp("The path read (a JSON Pointer, / for the root); with --intent, the model whose intent is called (default: /).", valueName: "target"))
  var givenTarget: String?

  /// `--clients`, or 50.
  var clients: Int { givenClients ?? 50 }
  /// `--requests`, or 100,000.
  var requests: Int { givenRequests ?? 100_000 }
  /// `--pipeline`, or 1.
  var pipeline: Int { givenPipeline ?? 1 }
  /// `--target`, or the root.
  var target: String { givenTarget ?? "/" }

  @Option(help: "The intent called on --target by every request, which then writes to the live state; without it, requests read.")
  var intent: String?

  @Option(help: "The intent's parameters as one JSON object.")
  var params: String?

  @Option(help: "What each request calls: state.get (the default) reads --target; intent.call (the default with --intent) calls --intent.")
  var method: Method?

  /// The method each request calls: as given, else intent.call when an intent is named.
  var resolvedMethod: Method { method ?? (intent == nil ? .stateGet : .intentCall) }

  @OptionGroup var connection: ConnectionOptions

  func validate() throws {
    guard clients >= 1 else { throw ValidationError("--clients must be at least 1") }
    guard requests >= 2 else { throw ValidationError("--requests must be at least 2 (the first is the check call)") }
    guard pipeline >= 1 else { throw ValidationError("--pipeline must be at least 1") }
    if resolvedMethod == .intentCall && intent == nil {
      throw ValidationError("--method intent.call needs --intent NAME: the intent each request calls (and whose writes it commits)")
    }
  }

  /// The `params` of every request.
  func requestParams() throws(CommandFailure) -> JSONValue {
    let path: JSONValue = .string(target == "/" ? "" : target)
    guard resolvedMethod == .intentCall, let intent else { return ["path": path] }
    var members: [String: JSONValue] = ["target": path, "intent": .string(intent)]
    if let params {
      guard let given = try? JSONValue(parsing: params), case .object = given else {
        throw CommandFailure(.usage, "--params must be a JSON object, such as '{\"id\": \"72c769dae94f5354\"}'")
      }
      members["params"] = given
    }
    return .object(members)
  }

  func run() async throws {
    do {
      if let address = try connection.sshAddress() {
        // Run where the daemon is: a load through ssh would measure ssh.
        let arguments = RemoteBench.arguments(from: CommandLine.arguments, address: address)
        let status: Int32
        do {
          status = try await RemoteBench.run(address, command: SSHCommand.fromEnvironment(), arguments: arguments)
        } catch {
          throw CommandFailure(.cannotConnect, "cannot start ssh for \(address): \(error)")
        }
        guard status == 0 else { throw ExitCode(status == 255 ? CommandFailure.Code.cannotConnect.rawValue : status) }
        return
      }
      let socket = try connection.socketPath()
      let body = try requestParams()
      let method = resolvedMethod.rawValue
      // One normal call first: a wrong target, intent or parameter gets the daemon's own
      // error (exit 1) instead of a flood of them.
      _ = try await connection.withConnection { try await $0.call(method, body) }
      let request: JSONValue = ["jsonrpc": "2.0", "id": 1, "method": .string(method), "params": body]
      let line = Array(request.jsonString.utf8) + [0x0A]
      let (clients, load, pipeline, total) = (Swift.min(self.clients, requests - 1), requests - 1, self.pipeline, requests)
      // A progress line only for a person: on standard error when it is a terminal, else on
      // standard output (a terminal too, or the output would be JSON).
      let progressFD: Int32? = connection.printsJSON ? nil : (isatty(STDERR_FILENO) != 0 ? STDERR_FILENO : STDOUT_FILENO)
      let result: LineLoad.Result
      do {
        result = try await LineLoad.onThread {
          let started = ContinuousClock.now
          return try LineLoad.roundTrips(
            socket: socket, clients: clients, requests: load, pipeline: pipeline, request: line,
            progress: progressFD.map { fd in
              { done in
                let elapsed = ContinuousClock.now - started
                let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
                Self.write("\r\(done + 1)/\(total) requests, \(Int((Double(done) / seconds).rounded())) requests/s\u{1B}[K", to: fd)
              }
            })
        }
      } catch let error as LoadError {
        if let progressFD { Self.write("\r\u{1B}[K", to: progressFD) }
        throw CommandFailure(Self.code(error.kind), error.description)
      }
      if let progressFD { Self.write("\r\u{1B}[K", to: progressFD) }
      report(result, clients: clients)
    } catch let failure as CommandFailure {
      throw Arborctl.fail(failure, json: connection.json)
    }
  }

  /// Prints the figures: one JSON object, or a table with a header line.
  func report(_ result: LineLoad.Result, clients: Int) {
    func thousandths(_ value: Double) -> JSONValue { .double((value * 1000).rounded() / 1000) }
    if connection.printsJSON {
      var members: [String: JSONValue] = [
        "method": .string(resolvedMethod.rawValue), "target": .string(target),
        "clients": .int(Int64(clients)), "pipeline": .int(Int64(pipeline)), "requests": .int(Int64(requests)),
        "seconds": thousandths(result.seconds), "rps": .int(Int64(result.rps.rounded())),
        "p50Ms": thousandths(result.p50), "p95Ms": thousandths(result.p95), "p99Ms": thousandths(result.p99),
        "maxMs": thousandths(result.max),
      ]
      if resolvedMethod == .intentCall, let intent { members["intent"] = .string(intent) }
      return Output.json(.object(members))
    }
    let columns: [(String, String)] = [
      ("clients", "\(clients)"), ("pipeline", "\(pipeline)"), ("requests", "\(requests)"),
      ("seconds", String(format: "%.3f", result.seconds)), ("requests/s", "\(Int(result.rps.rounded()))"),
      ("p50 ms", String(format: "%.3f", result.p50)), ("p95 ms", String(format: "%.3f", result.p95)),
      ("p99 ms", String(format: "%.3f", result.p99)), ("max ms", String(format: "%.3f", result.max)),
    ]
    // Right-aligned: every header ends where its value ends.
    func line(_ cells: [String]) -> String {
      zip(cells, columns).map { cell, column in
        String(repeating: " ", count: Swift.max(column.0.count, column.1.count) - cell.count) + cell
      }.joined(separator: "  ")
    }
    print(line(columns.map(\.0)))
    print(line(columns.map(\.1)))
  }

  /// The exit code of a failure of the load.
  static func code(_ kind: LoadError.Kind) -> CommandFailure.Code {
    switch kind {
    case .cannotConnect: .cannotConnect
    case .noReply: .timeout
    case .errorReply, .failure: .daemonError
    }
  }

  /// Writes `text` to `fd` at once, unbuffered (the progress line, from the load's thread).
  static func write(_ text: String, to fd: Int32) {
    let bytes = Array(text.utf8)
    _ = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
  }
}
