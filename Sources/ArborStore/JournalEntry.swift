import Arbor
import ArborJSON
import Foundation

/// One committed revision as the journal keeps it: when, what caused it, and its patch.
///
/// ```swift
/// let entry = JournalEntry(revision: 12, time: Date(), intent: "incrementTapped", target: "/counters/0/counter", patch: changeSet.patch)
/// ```
public struct JournalEntry: Sendable, Hashable {
  public var revision: UInt64
  public var time: Date
  /// The intent that made the revision, when one did.
  public var intent: String?
  /// The intent's target (a JSON Pointer or an id), when an intent made the revision.
  public var target: String?
  /// The revision's patch, against the state of the revision before it.
  public var patch: JSONPatch
  /// What the revision did to the tree's kept undo history (``ChangeSet/undoHistory``):
  /// written in the same transaction as the revision.
  public var undoHistory: [UndoHistoryChange]

  public init(
    revision: UInt64, time: Date, intent: String? = nil, target: String? = nil, patch: JSONPatch, undoHistory: [UndoHistoryChange] = []
  ) {
    self.revision = revision
    self.time = time
    self.intent = intent
    self.target = target
    self.patch = patch
    self.undoHistory = undoHistory
  }
}
