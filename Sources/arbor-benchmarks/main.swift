import ArborDaemon
import ArborLoad
import Foundation

// arbor-benchmarks: measures the runtime and prints each figure next to a baseline run in
// the same process.
//
//   swift run -c release arbor-benchmarks core           full sizes
//   swift run -c release arbor-benchmarks core --quick   a tenth of the work
//   swift run -c release arbor-benchmarks appends        appending children, one at a time and in batches
//   swift run -c release arbor-benchmarks runtime        events and tasks
//   swift run -c release arbor-benchmarks derived        a commit next to memoized values, context keys, preferences
//   swift run -c release arbor-benchmarks snapshots      snapshot encode/decode, patch sizes
//   swift run -c release arbor-benchmarks json           ArborJSON's parser and decoder vs Foundation's
//   swift run -c release arbor-benchmarks json-write     the writer alone, for a profiler (MB/s)
//   swift run -c release arbor-benchmarks all
//   arbor-benchmarks daemon [--runs N]                  the daemon vs Redis (make bench-daemon)
//   arbor-benchmarks instructions [--quick]             only its instructions per request under callgrind
//   arbor-benchmarks store [--runs N]                   durable intents vs Redis, start-up and
//                                                       snapshots of a 100,000-model tree (make bench-store)
//   arbor-benchmarks large-reply [--runs N]             other clients' latency while the whole
//                                                       100,000-model tree is read (make bench-large-reply)

let arguments = CommandLine.arguments.dropFirst()
if arguments.first == "__memory", arguments.count == 3, let count = Int(arguments.last!) {
  MemoryProbe.runChild(kind: arguments[arguments.startIndex + 1], count: count)
  exit(0)
}
// `arbor-benchmarks __daemon OPTIONS…`: a daemon hosting the benchmarks' `RootModel`, for
// the store benchmarks' large tree.
if arguments.first == "__daemon" {
  do {
    let options = try DaemonOptions.parse(Array(arguments.dropFirst()))
    try await ArborDaemon(name: "arbor-bench", options: options) { RootModel() }.run()
    exit(0)
  } catch {
    FileHandle.standardError.write(Data("\(error)\n".utf8))
    exit(1)
  }
}

let quick = arguments.contains("--quick")
let suites = arguments.filter { !$0.hasPrefix("--") && Int($0) == nil }
let selected = suites.isEmpty ? ["all"] : suites

// `arbor-benchmarks __load SOCKET CLIENTS REQUESTS`: intent round trips against a daemon
// that is already running, for profiling it (perf record -p).
if arguments.first == "__load", arguments.count == 4, let clients = Int(arguments[arguments.startIndex + 2]),
  let requests = Int(arguments[arguments.startIndex + 3])
{
  let socket = arguments[arguments.startIndex + 1]
  do {
    let result = try LineLoad.roundTrips(socket: socket, clients: clients, requests: requests, request: DaemonBenchmarks.incrementLine)
    print(String(format: "%.0f rps, p50 %.3f ms, p99 %.3f ms", result.rps, result.p50, result.p99))
  } catch {
    print("the load failed: \(error)")
  }
  exit(0)
}

// `arbor-benchmarks __line-echo SOCKET`: the NIO floor server (`LineEchoServer`), until killed.
if arguments.first == "__line-echo", arguments.count == 2 {
  do {
    try LineEchoServer.serve(at: arguments[arguments.startIndex + 1])
  } catch {
    print("the line-echo server failed: \(error)")
    exit(1)
  }
}

// `arbor-benchmarks __fanout SOCKET WATCHERS CHANGES`: one change reaching many path
// watchers of a daemon that is already running (with a row), for profiling it.
if arguments.first == "__fanout", arguments.count == 4, let watchers = Int(arguments[arguments.startIndex + 2]),
  let changes = Int(arguments[arguments.startIndex + 3])
{
  let socket = arguments[arguments.startIndex + 1]
  do {
    let watch = Array(#"{"jsonrpc":"2.0","id":1,"method":"state.watch","params":{"path":"/counters/0/counter/count"}}"#.utf8) + [0x0A]
    let fan = try LineLoad.fanOut(socket: socket, watchers: watchers, changes: changes, watch: watch, change: DaemonBenchmarks.incrementLine)
    print(String(format: "p50 %.2f ms, p99 %.2f ms, max %.2f ms", fan.p50, fan.p99, fan.max))
  } catch {
    print("the fan-out failed: \(error)")
  }
  exit(0)
}

if arguments.first == "__profile", arguments.count == 3, let count = Int(arguments.last!) {
  Profile.run(arguments[arguments.startIndex + 1], count: count)
  exit(0)
}

print("# arbor-benchmarks \(selected.joined(separator: " "))\(quick ? " (quick)" : "")")
for suite in selected {
  switch suite {
  case "core":
    await CoreBenchmarks(divisor: quick ? 10 : 1).run()
  case "reads":
    CoreBenchmarks(divisor: quick ? 10 : 1).propertyReads()
  case "appends":
    CoreBenchmarks(divisor: quick ? 10 : 1).appends()
  case "runtime":
    await RuntimeBenchmarks(divisor: quick ? 10 : 1).run()
  case "snapshots":
    await SnapshotBenchmarks(divisor: quick ? 10 : 1).run()
  case "derived":
    DerivedValueBenchmarks(divisor: quick ? 10 : 1).run()
  case "json":
    JSONBenchmarks(divisor: quick ? 10 : 1).run()
  case "json-write":
    JSONBenchmarks(divisor: 1).writeLoop(count: quick ? 10_000 : 100_000, seconds: quick ? 1 : 5)
  case "daemon":
    let runs = arguments.firstIndex(of: "--runs").flatMap { arguments.index(after: $0) < arguments.endIndex ? Int(arguments[arguments.index(after: $0)]) : nil } ?? 3
    await DaemonBenchmarks(quick: quick, runs: runs).run()
  case "instructions":
    await DaemonBenchmarks(quick: quick, runs: 1).instructions()
  case "postgres":
    let runs = arguments.firstIndex(of: "--runs").flatMap { arguments.index(after: $0) < arguments.endIndex ? Int(arguments[arguments.index(after: $0)]) : nil } ?? 3
    await PostgresBenchmarks(quick: quick, runs: runs).run()
  case "store":
    let runs = arguments.firstIndex(of: "--runs").flatMap { arguments.index(after: $0) < arguments.endIndex ? Int(arguments[arguments.index(after: $0)]) : nil } ?? 3
    await StoreBenchmarks(quick: quick, runs: runs).run()
  case "large-reply":
    let runs = arguments.firstIndex(of: "--runs").flatMap { arguments.index(after: $0) < arguments.endIndex ? Int(arguments[arguments.index(after: $0)]) : nil } ?? 3
    await LargeReplyBenchmarks(quick: quick, runs: runs).run()
  case "all":
    await CoreBenchmarks(divisor: quick ? 10 : 1).run()
    await RuntimeBenchmarks(divisor: quick ? 10 : 1).run()
    DerivedValueBenchmarks(divisor: quick ? 10 : 1).run()
    await SnapshotBenchmarks(divisor: quick ? 10 : 1).run()
    JSONBenchmarks(divisor: quick ? 10 : 1).run()
  default:
    print("unknown suite '\(suite)'; known: core, reads, appends, runtime, derived, snapshots, json, json-write, daemon, postgres, store, large-reply, all")
  }
}
