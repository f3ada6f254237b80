import Arbor
import ArborJSON
import Foundation

/// The same tree as `RootModel`/`SmallModel`, as plain Codable structs: the baseline for
/// snapshot encoding and decoding. Ids are carried as strings, like a model's.
struct PlainSmall: Codable {
  var id: String
  var value: Int
  var label: String
}

struct PlainRoot: Codable {
  var id: String
  var children: [PlainSmall]
  var title: String
}

/// A snapshot record around the plain tree, with the same header fields.
struct PlainRecord: Codable {
  var format: Int
  var root: String
  var schema: String
  var revision: UInt64
  var createdAt: String
  var state: PlainRoot
}

/// Snapshot encode and decode of a large tree next to plain `JSONEncoder`/`JSONDecoder`
/// of an equivalent tree of plain structs, and the size of the patch of a one-property
/// change at several tree sizes.
struct SnapshotBenchmarks {
  let divisor: Int

  func run() async {
    snapshots()
    await patchSizes()
  }

  func snapshots() {
    let count = 100_000 / divisor
    let runs = 3
    var report = Report("Snapshot of a tree of \(count) models (ms, best of \(runs))")
    report.row("operation", "Arbor", "plain Codable", "Arbor / plain")

    let (root, anchor) = RootModel(title: "bench").andAnchor()
    root.children = (0..<count).map { SmallModel(value: $0, label: "item \($0)") }
    let plain = PlainRecord(
      format: 1, root: "RootModel", schema: RootModel.schemaHash, revision: anchor.revision, createdAt: "2026-11-22T13:00:00Z",
      state: PlainRoot(
        id: root.id.description,
        children: root.children.map { PlainSmall(id: $0.id.description, value: $0.value, label: $0.label) },
        title: "bench"))
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]

    var snapshot = Data()
    let encodeArbor = Measure.best(of: runs) { snapshot = try! anchor.snapshot() } / 1e6
    var plainData = Data()
    let encodePlain = Measure.best(of: runs) { plainData = try! encoder.encode(plain) } / 1e6
    report.row("encode record", format(encodeArbor, "ms"), format(encodePlain, "ms"), ratio(encodeArbor, encodePlain))

    let stateData = try! encoder.encode(root)
    let plainStateData = try! encoder.encode(plain.state)
    compareDecodes(
      "decode state", in: &report, runs: runs, count: count,
      arbor: { try! JSONDecoder().decode(RootModel.self, from: stateData).children.count },
      plain: { try! JSONDecoder().decode(PlainRoot.self, from: plainStateData).children.count })

    var restoredCount = 0
    let restore = Measure.best(of: runs) {
      let (restored, _) = try! RootModel.andAnchor(restoring: snapshot)
      restoredCount = restored.children.count
    } / 1e6
    let decodeRecordPlain = Measure.best(of: runs) {
      restoredCount = try! JSONDecoder().decode(PlainRecord.self, from: plainData).state.children.count
    } / 1e6
    report.row("restore (decode, anchor, activate)", format(restore, "ms"), format(decodeRecordPlain, "ms"), ratio(restore, decodeRecordPlain))
    report.row("bytes", "\(snapshot.count)", "\(plainData.count)", ratio(Double(snapshot.count), Double(plainData.count)))
    report.print()
    precondition(restoredCount == count)
    restoresFromRecords(snapshot: snapshot, plainState: plainStateData, count: count)
  }

  /// A daemon's restore: the store hands over a record whose state is parsed already (a
  /// `JSONValue`), decoded with `JSONValueDecoder`, then anchored and activated. The
  /// baseline decodes the plain structs from the same kind of value, in the same run.
  func restoresFromRecords(snapshot: Data, plainState: Data, count: Int) {
    let runs = 5
    var report = Report("Restore of \(count) models from a parsed record (ms, best of \(runs))")
    report.row("step", "Arbor", "plain Codable (JSONValueDecoder)", "Arbor / plain")
    let record = try! JSONDecoder().decode(SnapshotRecord.self, from: snapshot)
    let plainValue = try! JSONValue(parsing: plainState)
    let decodePlain = compareDecodes(
      "decode the state", in: &report, runs: runs, count: count,
      arbor: {
        var decoder = JSONValueDecoder()
        decoder.userInfo[.arborDecodedModels] = DecodedModels()
        return try! decoder.decode(RootModel.self, from: record.state).children.count
      },
      plain: { try! JSONValueDecoder().decode(PlainRoot.self, from: plainValue).children.count })
    var restoredCount = 0
    let restore = Measure.best(of: runs) {
      let (restored, _) = try! RootModel.andAnchor(restoring: record)
      restoredCount = restored.children.count
    } / 1e6
    report.row("decode, anchor, activate", format(restore, "ms"), format(decodePlain, "ms"), ratio(restore, decodePlain))
    report.print()
    precondition(restoredCount == count)
  }

  /// Times the two decodes (each returns how many children it decoded, checked against
  /// `count`), adds their row, and returns the plain one's milliseconds.
  @discardableResult
  private func compareDecodes(
    _ name: String, in report: inout Report, runs: Int, count: Int, arbor: () -> Int, plain: () -> Int
  ) -> Double {
    var decoded = (arbor: 0, plain: 0)
    let arborTime = Measure.best(of: runs) { decoded.arbor = arbor() } / 1e6
    let plainTime = Measure.best(of: runs) { decoded.plain = plain() } / 1e6
    report.row(name, format(arborTime, "ms"), format(plainTime, "ms"), ratio(arborTime, plainTime))
    precondition(decoded.arbor == count && decoded.plain == count)
    return plainTime
  }

  func patchSizes() async {
    var report = Report("Patch of a one-property change (bytes of the encoded JSON Patch)")
    report.row("models in the tree", "patch bytes", "snapshot bytes", "snapshot / patch")
    for count in [1_000, 10_000, 100_000 / divisor] {
      let (root, anchor) = RootModel(title: "bench").andAnchor()
      root.children = (0..<count).map { SmallModel(value: $0, label: "item \($0)") }
      var changeSets = anchor.changeSets().makeAsyncIterator()
      root.children[count / 2].value = -1
      let patch = try! await changeSets.next()!.patch
      let patchBytes = try! JSONEncoder().encode(patch).count
      let snapshotBytes = try! anchor.snapshot().count
      report.row("\(count)", "\(patchBytes)", "\(snapshotBytes)", "\(snapshotBytes / patchBytes)x")
    }
    report.print()
  }
}
