/// Learns of the roots anchored with `withAnchor()`, `andAnchor()` and `returningAnchor()`
/// while it is the task's ``AnchoringObservation/observer``. Model-testing scopes use it to
/// test every root a test anchors.
package protocol AnchoringObserver: Sendable {
  /// A root was anchored (and activated); `anchor` owns its tree.
  func didAnchor<Root: Model>(_ anchor: ModelAnchor<Root>)
}

/// The observer of anchoring for the current task and the tasks it starts.
package enum AnchoringObservation {
  @TaskLocal package static var observer: (any AnchoringObserver)?
}
