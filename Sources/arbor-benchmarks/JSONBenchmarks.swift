import Arbor
import ArborJSON
import Foundation

/// The parameters of the daemon's `intent.call`, as a typed value.
struct PlainIntentParams: Codable {
  var target: String
  var intent: String
}

/// A daemon request line as a typed value.
struct PlainRequest: Codable {
  var jsonrpc: String
  var id: Int
  var method: String
  var params: PlainIntentParams
}

/// `ArborJSON`'s reading of JSON next to Foundation's in the same run: `JSONParser`
/// (`JSONValue(parsing:)`) against `JSONSerialization.jsonObject` and against `JSONDecoder`
/// decoding a `JSONValue`; `JSONValueDecoder` (after parsing, and from a value already in
/// memory) against `JSONDecoder` reading the same typed value from the bytes. Three
/// documents: a daemon request line, a state of 100 rows, and a snapshot-sized document.
/// Each input is handed over in its own form (bytes for ours, `Data` for Foundation's),
/// so no conversion is timed.
struct JSONBenchmarks {
  let divisor: Int

  func run() {
    requestLine()
    rows(count: 100, repetitions: 2_000 / divisor, unit: "µs")
    rows(count: 100_000 / divisor, repetitions: 1, unit: "ms")
    restore(count: 100_000 / divisor)
  }

  // MARK: - A request line

  func requestLine() {
    let lines = 20_000 / divisor
    let runs = 15
    let text = #"{"jsonrpc":"2.0","id":17,"method":"intent.call","params":{"target":"/counters/0/counter","intent":"incrementTapped"}}"#
    let bytes = Array(text.utf8)
    let data = Data(text.utf8)
    var report = Report("A daemon request line, \(bytes.count) bytes (ns per line; \(lines) lines, best of \(runs), alternating)")
    report.row("operation", "ArborJSON", "Foundation", "ArborJSON / Foundation")
    var kept = 0

    let (parse, serialization) = compare(lines, runs: runs) {
      kept &+= Self.count(try! JSONValue(parsing: bytes))
    } with: {
      kept &+= Self.count(try! JSONSerialization.jsonObject(with: data))
    }
    report.row("parse: JSONParser vs JSONSerialization", format(parse, "ns"), format(serialization, "ns"), ratio(parse, serialization))
    let (parseAgain, decoderValue) = compare(lines, runs: runs) {
      kept &+= Self.count(try! JSONValue(parsing: bytes))
    } with: {
      kept &+= Self.count(try! JSONDecoder().decode(JSONValue.self, from: data))
    }
    report.row("parse to JSONValue: JSONParser vs JSONDecoder", format(parseAgain, "ns"), format(decoderValue, "ns"), ratio(parseAgain, decoderValue))

    let (typed, foundationTyped) = compare(lines, runs: runs) {
      kept &+= try! JSONValueDecoder().decode(PlainRequest.self, from: JSONValue(parsing: bytes)).id
    } with: {
      kept &+= try! JSONDecoder().decode(PlainRequest.self, from: data).id
    }
    report.row("typed: parse + JSONValueDecoder vs JSONDecoder", format(typed, "ns"), format(foundationTyped, "ns"), ratio(typed, foundationTyped))

    let value = try! JSONValue(parsing: bytes)
    let params = value["params"]!
    let paramData = try! JSONEncoder().encode(params)
    let (fromValue, fromData) = compare(lines, runs: runs) {
      kept &+= try! JSONValueDecoder().decode(PlainIntentParams.self, from: params).intent.utf8.count
    } with: {
      kept &+= try! JSONDecoder().decode(PlainIntentParams.self, from: paramData).intent.utf8.count
    }
    report.row("intent params: JSONValueDecoder (value) vs JSONDecoder (bytes)", format(fromValue, "ns"), format(fromData, "ns"), ratio(fromValue, fromData))
    report.print()
    precondition(kept > 0)
  }

  // MARK: - A state of `count` rows

  /// Parsing and decoding a `PlainRoot` of `count` rows, `repetitions` times per
  /// measurement; figures per document in `unit` (µs or ms).
  func rows(count: Int, repetitions: Int, unit: String) {
    let scale = unit == "ms" ? 1e6 : 1e3
    let root = Self.plainRoot(count: count)
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    let data = try! encoder.encode(root)
    let bytes = Array(data)
    let runs = repetitions > 1 ? 9 : 3
    var report = Report("A state of \(count) rows, \(bytes.count) bytes (\(unit) per document; best of \(runs), alternating)")
    report.row("operation", "ArborJSON", "Foundation", "ArborJSON / Foundation")
    var kept = 0

    var (parse, serialization) = compare(repetitions, runs: runs) {
      kept &+= Self.count(try! JSONValue(parsing: bytes))
    } with: {
      kept &+= Self.count(try! JSONSerialization.jsonObject(with: data))
    }
    (parse, serialization) = (parse / scale, serialization / scale)
    report.row("parse: JSONParser vs JSONSerialization", format(parse, unit), format(serialization, unit), ratio(parse, serialization))
    var (parseAgain, decoderValue) = compare(repetitions, runs: runs) {
      kept &+= Self.count(try! JSONValue(parsing: bytes))
    } with: {
      kept &+= Self.count(try! JSONDecoder().decode(JSONValue.self, from: data))
    }
    (parseAgain, decoderValue) = (parseAgain / scale, decoderValue / scale)
    report.row("parse to JSONValue: JSONParser vs JSONDecoder", format(parseAgain, unit), format(decoderValue, unit), ratio(parseAgain, decoderValue))

    var (typed, foundationTyped) = compare(repetitions, runs: runs) {
      kept &+= try! JSONValueDecoder().decode(PlainRoot.self, from: JSONValue(parsing: bytes)).children.count
    } with: {
      kept &+= try! JSONDecoder().decode(PlainRoot.self, from: data).children.count
    }
    (typed, foundationTyped) = (typed / scale, foundationTyped / scale)
    report.row("typed: parse + JSONValueDecoder vs JSONDecoder", format(typed, unit), format(foundationTyped, unit), ratio(typed, foundationTyped))

    let value = try! JSONValue(parsing: bytes)
    var (fromValue, fromData) = compare(repetitions, runs: runs) {
      kept &+= try! JSONValueDecoder().decode(PlainRoot.self, from: value).children.count
    } with: {
      kept &+= try! JSONDecoder().decode(PlainRoot.self, from: data).children.count
    }
    (fromValue, fromData) = (fromValue / scale, fromData / scale)
    report.row("typed: JSONValueDecoder (value) vs JSONDecoder (bytes)", format(fromValue, unit), format(fromData, unit), ratio(fromValue, fromData))

    // Writing: the daemon's replies and notifications are a `JSONValue` (the watch hub's
    // copy of the state) written as bytes; Foundation writes the same value as a
    // `JSONSerialization` object, and `JSONEncoder` the typed value, both with sorted keys.
    let object = try! JSONSerialization.jsonObject(with: data)
    var written: [UInt8] = []
    value.writeJSON(to: &written)
    precondition(written == bytes, "the writer's bytes are not the encoder's")
    var (write, serialize) = compare(repetitions, runs: runs) {
      var line: [UInt8] = []
      value.writeJSON(to: &line)
      kept &+= line.count
    } with: {
      kept &+= try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]).count
    }
    (write, serialize) = (write / scale, serialize / scale)
    report.row("write: JSONValue.writeJSON vs JSONSerialization.data", format(write, unit), format(serialize, unit), ratio(write, serialize))
    var (writeAgain, encode) = compare(repetitions, runs: runs) {
      var line: [UInt8] = []
      value.writeJSON(to: &line)
      kept &+= line.count
    } with: {
      kept &+= try! encoder.encode(root).count
    }
    (writeAgain, encode) = (writeAgain / scale, encode / scale)
    report.row("write: JSONValue.writeJSON vs JSONEncoder (typed)", format(writeAgain, unit), format(encode, unit), ratio(writeAgain, encode))
    let megabytes = Double(bytes.count) / 1e6
    let seconds = min(write, writeAgain) * (unit == "ms" ? 1e-3 : 1e-6)
    report.row("write: MB/s (goal >= 300)", format(megabytes / seconds, "MB/s"), format(megabytes / (min(serialize, encode) * (unit == "ms" ? 1e-3 : 1e-6)), "MB/s"), "")
    report.print()
    precondition(kept > 0)
  }

  // MARK: - Writing alone

  /// Writes a state of `count` rows for `seconds`, nothing else, and prints the rate: the
  /// run to give a profiler (`perf record … arbor-benchmarks json-write`).
  func writeLoop(count: Int, seconds: Double) {
    let root = Self.plainRoot(count: count)
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    let value = try! JSONValue(parsing: Array(try! encoder.encode(root)))
    var written = 0
    var documents = 0
    let elapsed = Measure.nanoseconds {
      let start = ContinuousClock.now
      while ContinuousClock.now - start < .seconds(seconds) {
        var line: [UInt8] = []
        value.writeJSON(to: &line)
        written += line.count
        documents += 1
      }
    }
    print("wrote \(documents) documents of \(written / max(1, documents)) bytes: \(format(Double(written) / elapsed * 1e3, "MB/s"))")
  }

  // MARK: - Restoring a model tree

  /// A snapshot record of a `RootModel` with `count` children restored the two ways the
  /// runtime offers: from its bytes (`andAnchor(restoring: Data)`, decoded by Foundation's
  /// `JSONDecoder`) and from a parsed record (`JSONValue(parsing:)`, `JSONValueDecoder`
  /// for the record, `andAnchor(restoring: SnapshotRecord)`, the daemon's path).
  func restore(count: Int) {
    let runs = 3
    let (root, anchor) = RootModel(title: "bench").andAnchor()
    root.children = (0..<count).map { SmallModel(value: $0, label: "item \($0)") }
    let data = try! anchor.snapshot()
    let bytes = Array(data)
    var report = Report("Restoring a snapshot of \(count) models, \(bytes.count) bytes (ms, best of \(runs), alternating)")
    report.row("operation", "ArborJSON", "Foundation", "ArborJSON / Foundation")
    var kept = 0
    let stateData = try! JSONEncoder().encode(root)
    let stateBytes = Array(stateData)
    var (decodeState, foundationState) = compare(1, runs: runs) {
      kept &+= try! JSONValueDecoder().decode(RootModel.self, from: JSONValue(parsing: stateBytes)).children.count
    } with: {
      kept &+= try! JSONDecoder().decode(RootModel.self, from: stateData).children.count
    }
    (decodeState, foundationState) = (decodeState / 1e6, foundationState / 1e6)
    report.row("decode the state: parse + JSONValueDecoder vs JSONDecoder", format(decodeState, "ms"), format(foundationState, "ms"), ratio(decodeState, foundationState))
    // The restored trees are kept until both are measured: their teardown is not timed.
    var restored: [ModelAnchor<RootModel>] = []
    var (fromRecord, fromData) = compare(1, runs: runs) {
      let record = try! JSONValueDecoder().decode(SnapshotRecord.self, from: JSONValue(parsing: bytes))
      restored.append(try! RootModel.andAnchor(restoring: record).1)
    } with: {
      restored.append(try! RootModel.andAnchor(restoring: data).1)
    }
    (fromRecord, fromData) = (fromRecord / 1e6, fromData / 1e6)
    report.row("restore: record (daemon) vs andAnchor(restoring: Data)", format(fromRecord, "ms"), format(fromData, "ms"), ratio(fromRecord, fromData))
    kept &+= restored.map { $0.model.children.count }.reduce(0, +)
    restored = []
    report.print()
    precondition(kept > 0)
  }

  // MARK: - Helpers

  /// The plain state every document here is made of: a root of `count` rows.
  static func plainRoot(count: Int) -> PlainRoot {
    PlainRoot(
      id: "0123456789abcdef", children: (0..<count).map { PlainSmall(id: String(format: "%016x", $0), value: $0, label: "item \($0)") },
      title: "bench")
  }

  /// Nanoseconds per call of `ours` and of `theirs`: the best of `runs` measurements of
  /// `items` calls each, taken in turn, so that both meet the same moments of a busy machine.
  private func compare(_ items: Int, runs: Int, _ ours: () -> Void, with theirs: () -> Void) -> (Double, Double) {
    var best = (Double.infinity, Double.infinity)
    for _ in 0..<runs {
      best.0 = min(best.0, Measure.nanoseconds { for _ in 0..<items { ours() } })
      best.1 = min(best.1, Measure.nanoseconds { for _ in 0..<items { theirs() } })
    }
    let count = Double(max(1, items))
    return (best.0 / count, best.1 / count)
  }

  /// Something of a parsed value to keep, so that the parse is not optimized away.
  private static func count(_ value: JSONValue) -> Int {
    switch value {
    case .object(let members): return members.count
    case .array(let elements): return elements.count
    default: return 1
    }
  }

  private static func count(_ value: Any) -> Int {
    if let members = value as? [String: Any] { return members.count }
    if let elements = value as? [Any] { return elements.count }
    return 1
  }
}
