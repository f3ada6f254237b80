import ArborLoad
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Instructions a server executes per request, counted by Valgrind's callgrind: a figure
/// that does not move with the machine's load, to steer by. The server runs under
/// `valgrind --tool=callgrind` with instrumentation off while it starts and warms up;
/// `callgrind_control -i on` starts the count just before `requests` round trips from one
/// client (the load generator is another process, not counted), and the count is dumped
/// right after. Every thread of the server is counted, and the calls to `malloc` too.
///
///   valgrind --tool=callgrind --instr-atstart=no counterfactd …   (Debian's valgrind)
struct InstructionCounts {
  /// What one measurement found.
  struct Figures {
    var instructions: Double
    var allocations: Double
    var dump: String
  }

  let directory: String
  let requests: Int

  /// More callgrind options for a closer look (`ARBOR_CALLGRIND_OPTIONS="--separate-callers=3"`):
  /// the counts stay the same, the dump tells callers apart.
  static var extraOptions: [String] {
    (ProcessInfo.processInfo.environment["ARBOR_CALLGRIND_OPTIONS"] ?? "").split(separator: " ").map(String.init)
  }

  /// Starts `executable` under callgrind, waits for `socket`, runs `prepare` (against the
  /// socket), warms up with `requests / 4` round trips, then counts `requests` of them.
  func measure(
    _ label: String, executable: String, arguments: [String], socket: String, request: [UInt8], preload: String? = nil,
    prepare: @escaping @Sendable (String) throws -> Void = { _ in }
  ) async -> Figures? {
    let output = directory + "/callgrind.\(label)"
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments =
      (preload.map { ["LD_PRELOAD=\($0)"] } ?? [])
      + ["valgrind", "--tool=callgrind", "--instr-atstart=no", "--callgrind-out-file=\(output).%p"] + Self.extraOptions + [executable]
      + arguments
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    guard (try? process.run()) != nil else { return nil }
    defer {
      kill(process.processIdentifier, SIGKILL)
      process.waitUntilExit()
    }
    let pid = process.processIdentifier
    // Under valgrind a start takes seconds; a server valgrind cannot run ends at once.
    let deadline = ContinuousClock.now + .seconds(180)
    while !(FileManager.default.fileExists(atPath: socket) && Self.connects(socket)) {
      guard process.isRunning, ContinuousClock.now < deadline else { return nil }
      try? await Task.sleep(for: .milliseconds(200))
    }
    let requests = self.requests
    do {
      try await LineLoad.onThread {
        try prepare(socket)
        _ = try LineLoad.roundTrips(socket: socket, clients: 1, requests: Swift.max(1, requests / 4), request: request)
      }
      guard Self.control(["-i", "on", String(pid)]) else { return nil }
      _ = try await LineLoad.onThread {
        try LineLoad.roundTrips(socket: socket, clients: 1, requests: requests, request: request)
      }
      guard Self.control(["-d", String(pid)]), Self.control(["-i", "off", String(pid)]) else { return nil }
    } catch {
      Swift.print("the counted load failed: \(error)")
      return nil
    }
    let dumps = ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [])
      .filter { $0.hasPrefix("callgrind.\(label).\(pid).") }.sorted()
    guard let last = dumps.last, let text = try? String(contentsOfFile: directory + "/" + last, encoding: .utf8),
      let total = Self.total(text)
    else { return nil }
    // The run's directory goes when it ends: the dump is kept beside it for callgrind_annotate.
    let kept = NSTemporaryDirectory() + "arbor-callgrind-\(label).out"
    try? FileManager.default.removeItem(atPath: kept)
    try? FileManager.default.copyItem(atPath: directory + "/" + last, toPath: kept)
    return Figures(
      instructions: Double(total) / Double(requests), allocations: Double(Self.calls(to: "malloc", in: text)) / Double(requests),
      dump: kept)
  }

  /// Whether valgrind and callgrind_control are installed.
  static var available: Bool {
    ["valgrind", "callgrind_control"].allSatisfy { tool in
      (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin").split(separator: ":").contains {
        FileManager.default.isExecutableFile(atPath: "\($0)/\(tool)")
      }
    }
  }

  private static func control(_ arguments: [String]) -> Bool {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["callgrind_control"] + arguments
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    guard (try? process.run()) != nil else { return false }
    process.waitUntilExit()
    return process.terminationStatus == 0
  }

  /// The `totals:` (or `summary:`) line of a callgrind dump: instructions executed.
  static func total(_ text: String) -> Int? {
    for line in text.split(separator: "\n") where line.hasPrefix("totals:") || line.hasPrefix("summary:") {
      if let value = line.split(separator: " ").last.flatMap({ Int($0) }) { return value }
    }
    return nil
  }

  /// How many calls to the function `name` a callgrind dump records, from every caller.
  /// Names are compressed: `cfn=(12) malloc` names id 12 once, later lines say `cfn=(12)`.
  static func calls(to name: String, in text: String) -> Int {
    var ids: Set<Substring> = []
    var counting = false
    var total = 0
    for line in text.split(separator: "\n") {
      if line.hasPrefix("cfn=") || line.hasPrefix("fn=") {
        let rest = line.drop { $0 != "(" }
        if let close = rest.firstIndex(of: ")") {
          let id = rest[rest.startIndex...close]
          let named = rest[rest.index(after: close)...].trimmingCharacters(in: .whitespaces)
          if named == name { ids.insert(id) }
          counting = line.hasPrefix("cfn=") && ids.contains(id)
        } else {
          counting = false
        }
      } else if line.hasPrefix("calls="), counting {
        total += Int(line.dropFirst(6).split(separator: " ").first ?? "") ?? 0
        counting = false
      }
    }
    return total
  }

  /// Whether something listens on `path`.
  private static func connects(_ path: String) -> Bool {
    guard let socket = try? RawSocket(connectingTo: path) else { return false }
    socket.close()
    return true
  }
}
