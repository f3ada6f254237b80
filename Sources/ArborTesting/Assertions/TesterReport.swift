import Arbor
import ArborJSON

/// The parts of a tester's messages that do not depend on where the tester learns of
/// changes (in process, or through a daemon's socket).
package enum TesterReport {
  /// `TesterCounter.count = 1 (at /count)` for each read, its value looked up in `state`;
  /// `missing` for a value not found there.
  package static func describe(_ reads: Set<RecordedRead>, in state: JSONValue?, missing: String) -> [String] {
    reads.map { read in
      let pointer = state?.pointer(toObjectWithID: read.modelID.description)?.appending(read.property)
      let value = pointer.flatMap { try? $0.resolve(in: state ?? .null) }
      return "\(read.modelType).\(read.property) = \(value?.jsonString ?? missing)\(pointer.map { " (at \($0))" } ?? "")"
    }.sorted()
  }

  /// The `.tasks` section: the tasks still running outside activation, after the grace of
  /// ``AssertionLoop/tasksStillRunning(_:)``; nil when there are none.
  package static func runningTasks<Root: Model>(of anchor: ModelAnchor<Root>) -> String? {
    tasksSection(AssertionLoop.tasksStillRunning { anchor.runningTasks.filter { !$0.isActivationTask }.map(\.description) })
  }

  /// The `.tasks` section for the tasks `running` describes; nil when there are none.
  package static func tasksSection(_ running: [String]) -> String? {
    guard !running.isEmpty else { return nil }
    return "Tasks still running:\n" + running.map { "  a task of \($0)" }.joined(separator: "\n")
  }

  /// The `.probes` section: the calls of installed probes no `wasCalled` matched; nil when
  /// there are none.
  package static func unassertedCalls(of probes: [TestProbe]) -> String? {
    let calls = probes.flatMap { probe in probe.unconsumedCalls.map { "  \(probe.name)(\($0))" } }
    guard !calls.isEmpty else { return nil }
    return "Probe calls not asserted (wasCalled):\n" + calls.joined(separator: "\n")
  }
}
