import Arbor
import ArborJSON

/// Checks that a tree survives a snapshot: random operations are driven on a live tree;
/// at a random step its snapshot is restored into a second tree, and from then on every
/// operation is driven on both, with generators of the same seed. Afterwards the two
/// states must be equal (model ids of models created after the snapshot aside: see
/// ``ArborJSON/JSONValue/normalizingModelIDs()``).
///
/// ```swift
/// let outcome = try RestoreRoundTrip.run(seed: 7, steps: 200, root: { AppModel() }) { app, random in
///   app.addButtonTapped()
/// }
/// #expect(outcome.mismatch == nil)
/// ```
public enum RestoreRoundTrip {
  /// What one run saw.
  public struct Outcome: Sendable {
    /// The step after which the snapshot was taken.
    public var snapshotStep: Int
    /// The revision of the snapshot.
    public var snapshotRevision: UInt64
    /// The final revisions of the live and the restored tree.
    public var revisions: (live: UInt64, restored: UInt64)
    /// Where the two final states differ, or nil when they are equal.
    public var mismatch: String?
  }

  public static func run<Root: Model>(
    seed: UInt64, steps: Int, root: () -> Root,
    step: (Root, inout SeededRandomNumberGenerator) -> Void
  ) throws -> Outcome {
    var choose = SeededRandomNumberGenerator(seed: seed)
    let snapshotStep = Int.random(in: 0...steps, using: &choose)
    var liveRandom = SeededRandomNumberGenerator(seed: seed &+ 1)
    let (live, liveAnchor) = root().andAnchor()
    for _ in 0..<snapshotStep { step(live, &liveRandom) }

    let data = try liveAnchor.snapshot()
    let (restored, restoredAnchor) = try Root.andAnchor(restoring: data)
    let snapshotRevision = restoredAnchor.revision
    var restoredRandom = liveRandom
    let first = try liveAnchor.state().value
    let second = try restoredAnchor.state().value
    guard first == second else {
      return Outcome(
        snapshotStep: snapshotStep, snapshotRevision: snapshotRevision,
        revisions: (liveAnchor.revision, restoredAnchor.revision),
        mismatch: "right after restoring: " + (JSONValue.difference(first, second) ?? "?"))
    }
    for _ in snapshotStep..<steps {
      step(live, &liveRandom)
      step(restored, &restoredRandom)
    }
    let liveState = try liveAnchor.state().value.normalizingModelIDs()
    let restoredState = try restoredAnchor.state().value.normalizingModelIDs()
    return Outcome(
      snapshotStep: snapshotStep, snapshotRevision: snapshotRevision,
      revisions: (liveAnchor.revision, restoredAnchor.revision),
      mismatch: JSONValue.difference(liveState, restoredState))
  }
}

extension JSONValue {
  /// The JSON Pointer of the first place where two values differ, with both values; nil
  /// when they are equal.
  ///
  /// ```swift
  /// JSONValue.difference(["a": 1], ["a": 2])   // "/a: 1 ≠ 2"
  /// ```
  public static func difference(_ lhs: JSONValue, _ rhs: JSONValue, at path: String = "") -> String? {
    switch (lhs, rhs) {
    case (.object(let a), .object(let b)):
      for key in Set(a.keys).union(b.keys).sorted() {
        let here = path + JSONPointer(tokens: [key]).description
        if let difference = difference(a[key] ?? .null, b[key] ?? .null, at: here) { return difference }
        if (a[key] == nil) != (b[key] == nil) { return "\(here): present on one side only" }
      }
      return nil
    case (.array(let a), .array(let b)):
      for index in 0..<min(a.count, b.count) {
        if let difference = difference(a[index], b[index], at: "\(path)/\(index)") { return difference }
      }
      return a.count == b.count ? nil : "\(path): \(a.count) elements ≠ \(b.count) elements"
    default:
      return lhs == rhs ? nil : "\(path.isEmpty ? "/" : path): \(lhs) ≠ \(rhs)"
    }
  }
}
