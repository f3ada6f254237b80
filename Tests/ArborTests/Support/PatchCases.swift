import Arbor
import ArborJSON
import Foundation
import Testing

/// The revisions of a random run, kept to be checked once more by an independent JSON
/// Patch implementation: Python's `jsonpatch` must turn each previous state into the next.
///
/// ```swift
/// var cases = PatchCases()
/// try cases.append(revision: 3, previous: before, patch: patch, next: after)
/// try await cases.expectPythonAgrees()
/// ```
struct PatchCases {
  private var lines = Data()
  private(set) var count = 0

  mutating func append(revision: UInt64, previous: JSONValue, patch: JSONPatch, next: JSONValue) throws {
    let line: JSONValue = [
      "revision": .int(Int64(revision)), "previous": previous, "patch": try JSONValueEncoder().encode(patch), "next": next,
    ]
    lines.append(line.jsonData())
    lines.append(UInt8(ascii: "\n"))
    count += 1
  }

  /// Applies every patch with Python's `jsonpatch` and expects each result to be the next state.
  func expectPythonAgrees(sourceLocation: SourceLocation = #_sourceLocation) async throws {
    let script = """
      import json, sys, jsonpatch
      count = 0
      for line in sys.stdin:
          case = json.loads(line)
          result = jsonpatch.apply_patch(case["previous"], case["patch"])
          if result != case["next"]:
              print("revision %d: jsonpatch gives %s, the tree has %s" % (case["revision"], json.dumps(result), json.dumps(case["next"])))
              sys.exit(1)
          count += 1
      print(count)
      """
    let result = try await Python.run(script, stdin: lines)
    #expect(result.status == 0, "\(result.stdout)\(result.stderr)", sourceLocation: sourceLocation)
    #expect(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == String(count), sourceLocation: sourceLocation)
  }
}
