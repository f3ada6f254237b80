#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads of models' properties answered from recorded states instead of the live ones:
/// the `.transitions` check of a model test evaluates an `expect` block as of each
/// recorded write in turn.
///
/// Like ``AccessTracking`` it is a thread-local (the evaluated block is synchronous). It is
/// consulted only while the thread's reads are recorded (``ReadRecording``), so that a
/// read outside any recording pays nothing for it: evaluate the block inside
/// `ReadRecording.recording`.
package enum HistoricalReads {
  private static let key: pthread_key_t = {
    var key = pthread_key_t()
    pthread_key_create(&key, nil)
    return key
  }()

  /// The recorded states in force on this thread, by context.
  final class Override {
    let states: [ObjectIdentifier: any Sendable]
    init(_ states: [ObjectIdentifier: any Sendable]) { self.states = states }
  }

  static var current: Override? {
    guard let raw = pthread_getspecific(key) else { return nil }
    return Unmanaged<Override>.fromOpaque(raw).takeUnretainedValue()
  }

  /// Runs `body` with reads of the models in `states` answered from those states.
  package static func reading<R>(_ states: [RecordedStates.Key: any Sendable], _ body: () throws -> R) rethrows -> R {
    let override = Override(Dictionary(uniqueKeysWithValues: states.map { ($0.key.identifier, $0.value) }))
    let previous = pthread_getspecific(key)
    pthread_setspecific(key, Unmanaged.passUnretained(override).toOpaque())
    defer {
      pthread_setspecific(key, previous)
      withExtendedLifetime(override) {}
    }
    return try body()
  }
}

/// The states a transaction left its written models in, and the states they had before
/// it, for ``HistoricalReads``.
package struct RecordedStates: Sendable {
  /// A model whose state was recorded (its context, kept alive by the record).
  package struct Key: Hashable, Sendable {
    let context: AnyModelContext
    var identifier: ObjectIdentifier { ObjectIdentifier(context) }

    init(context: AnyModelContext) { self.context = context }

    /// The key of a model's state.
    package init(_ model: some Model) { self.context = model._$modelContext }

    package static func == (lhs: Key, rhs: Key) -> Bool { lhs.context === rhs.context }
    package func hash(into hasher: inout Hasher) { hasher.combine(identifier) }
  }

  /// Each written model's state before the transaction.
  package let before: [Key: any Sendable]
  /// Each written model's state after it.
  package let after: [Key: any Sendable]
}
