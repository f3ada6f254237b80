import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

extension LineLoad {
  /// The load of independent clients, as many scripts would make it: `clients` threads,
  /// each with a blocking connection of its own and one request in flight, send `request`
  /// `requests` times in all (shares differing by at most one) and read each reply line.
  /// The run starts when every client is connected, and ends when the last reply is read.
  ///
  /// `isError` tells a reply that stops the run (by default a JSON-RPC error); a closed
  /// connection stops it too. The same client drives any line protocol whose replies are
  /// one line each, Redis's RESP included (`+OK\r\n`).
  ///
  /// ```swift
  /// let set = Array("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\n".utf8)
  /// let redis = try LineLoad.independentRoundTrips(
  ///   socket: "/tmp/redis.sock", clients: 50, requests: 50_000, request: set, isError: { $0.first == UInt8(ascii: "-") })
  /// ```
  public static func independentRoundTrips(
    socket path: String, clients: Int, requests: Int, request: [UInt8],
    isError: @escaping @Sendable (ArraySlice<UInt8>) -> Bool = LineLoad.isError
  ) throws -> Result {
    guard clients > 0, requests > 0 else {
      throw LoadError("clients and requests must be at least 1 (got \(clients), \(requests))")
    }
    let clients = Swift.min(clients, requests)
    let shares = (0..<clients).map { requests / clients + ($0 < requests % clients ? 1 : 0) }
    let sockets = try (0..<clients).map { _ in try RawSocket(connectingTo: path) }
    defer { for socket in sockets { socket.close() } }
    let run = IndependentRun(clients: clients)
    for index in 0..<clients {
      let thread = Thread {
        var socket = sockets[index]
        var latencies: [Double] = []
        latencies.reserveCapacity(shares[index])
        var failure: LoadError?
        run.ready.signal()
        run.start.wait()
        do {
          for _ in 0..<shares[index] {
            let sent = monotonicNanoseconds()
            try socket.send(request)
            let line = try socket.readLine()
            let now = monotonicNanoseconds()
            if isError(line) {
              failure = LoadError("the server answered with an error: \(String(decoding: line, as: UTF8.self))", kind: .errorReply)
              break
            }
            latencies.append(Double(now - sent) / 1e6)
          }
        } catch let error as LoadError {
          failure = error
        } catch {
          failure = LoadError("\(error)")
        }
        run.finish(index: index, latencies: latencies, failure: failure)
      }
      thread.stackSize = 256 << 10
      thread.start()
    }
    for _ in 0..<clients { run.ready.wait() }
    let started = monotonicNanoseconds()
    for _ in 0..<clients { run.start.signal() }
    for _ in 0..<clients { run.done.wait() }
    let seconds = Double(monotonicNanoseconds() - started) / 1e9
    let (latencies, failure) = run.results()
    if let failure { throw failure }
    return Result(requests: latencies.count, seconds: seconds, latency: LatencySummary(milliseconds: latencies))
  }
}

/// The threads of one ``LineLoad/independentRoundTrips(socket:clients:requests:request:isError:)``
/// run: a start line they wait at together, and what each measured.
private final class IndependentRun: Sendable {
  let ready = DispatchSemaphore(value: 0)
  let start = DispatchSemaphore(value: 0)
  let done = DispatchSemaphore(value: 0)
  private let measured: Mutex<(latencies: [[Double]], failure: LoadError?)>

  init(clients: Int) { measured = Mutex((Array(repeating: [], count: clients), nil)) }

  func finish(index: Int, latencies: [Double], failure: LoadError?) {
    measured.withLock {
      $0.latencies[index] = latencies
      if $0.failure == nil { $0.failure = failure }
    }
    done.signal()
  }

  func results() -> ([Double], LoadError?) {
    measured.withLock { (Array($0.latencies.joined()), $0.failure) }
  }
}
