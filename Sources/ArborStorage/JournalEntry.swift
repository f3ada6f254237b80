import ArborJSON
import ArborRecords
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
  /// `patch` already written as JSON (``ChangeSet/patchJSON``), when the one who made the
  /// entry had it: the journal writes these bytes instead of encoding the patch again.
  /// Not part of the entry's identity (`==` and `hash` ignore it).
  public var encodedPatch: [UInt8]?

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

  public static func == (lhs: JournalEntry, rhs: JournalEntry) -> Bool {
    lhs.revision == rhs.revision && lhs.time == rhs.time && lhs.intent == rhs.intent && lhs.target == rhs.target
      && lhs.patch == rhs.patch && lhs.undoHistory == rhs.undoHistory
  }

  public func hash(into hasher: inout Hasher) {
    hasher.combine(revision)
    hasher.combine(time)
    hasher.combine(intent)
    hasher.combine(target)
    hasher.combine(patch)
    hasher.combine(undoHistory)
  }
}
