import ArborJSON
import Foundation

/// What the next process needs besides the descriptors: the revision the handing process
/// stopped at and the schema of its model, how many hand-overs came before, and each
/// connection's unhandled input, unsent output and watches, by the name its descriptor was stored under.
/// Passed as JSON in a memory file stored as `handover`, at every hand-over (with no
/// connection, it still counts the generation).
///
/// ```swift
/// let state = HandOverState(generation: 1, revision: 12, schema: AppModel.schemaHash, connections: ["connection-4": .init(input: [], output: nil, watches: [])])
/// ```
struct HandOverState: Codable, Sendable, Equatable {
  /// One connection: what it had sent that was not handled yet, what it was to be sent
  /// and was not (written by the next process before anything of its own), and its
  /// watches.
  struct Connection: Codable, Sendable, Equatable {
    var input: [UInt8]
    /// Nil from a process that wrote all output before it handed over.
    var output: Data?
    var watches: [HandedWatch]
  }

  /// The next process's generation: 1 after the first hand-over, and so on.
  var generation: Int
  /// The revision the handing process saved and stopped at.
  var revision: UInt64
  /// The schema hash of the handing process's root model. A next process whose model has
  /// another migrated the state, and its watchers' copies are of the old shape: each state
  /// watch gets a resync. Nil from a process that did not say (treated as another schema).
  var schema: String?
  var connections: [String: Connection]

  /// The name a connection's descriptor is stored under.
  static func descriptorName(_ id: Int) -> String { "connection-\(id)" }

  /// The name the state itself is stored under.
  static let stateName = "handover"

  /// The name the HTTP listener's socket is kept under (`KeptHTTPSocket`, with the HTTP
  /// trait): not `http`, a socket unit's name.
  static let httpListenerName = "http-kept"

  /// Whether a passed descriptor is part of a hand-over (not a listening socket).
  static func isHandedOver(_ name: String) -> Bool { name == stateName || name.hasPrefix("connection-") }
}

extension HandOverState {
  /// The state as JSON, as the next process reads it (``init(reading:)``); a process of an
  /// earlier build reads the same text with Foundation's `JSONDecoder`. Written by
  /// ArborJSON: Foundation's encoder and decoder took about 10 ms of each hand-over at
  /// 1,050 connections, while every client waited.
  ///
  /// ```swift
  /// let file = try MemoryFile.holding(try state.encoded(), name: "arbor-handover")
  /// ```
  func encoded() throws -> [UInt8] {
    var bytes: [UInt8] = []
    try JSONValueEncoder().encode(self).writeJSON(to: &bytes)
    return bytes
  }

  /// Reads a state written by ``encoded()``, or by an earlier build with `JSONEncoder`.
  ///
  /// ```swift
  /// let state = try HandOverState(reading: MemoryFile.contents(of: descriptor))
  /// ```
  init(reading bytes: [UInt8]) throws {
    self = try JSONValueDecoder().decode(HandOverState.self, from: JSONValue(parsing: bytes))
  }
}
