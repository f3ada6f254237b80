/// The contexts one decode has made, by id: an open-addressing table (linear probing) that
/// keeps each id beside a pointer to its context, at most half full.
///
/// Most look-ups of a restore find nothing (a model is shared only when its id comes
/// again), and a look-up that finds nothing probes until an empty slot. A `Dictionary`
/// hashed each id with SipHash and rehashed every entry as it doubled; the tree's
/// ``ContextIndex`` reads the id from each context it probes; a table of `Optional`
/// references retained and released each context it looked at. Together with their lock
/// each took a fifth of a restored model's decoding.
///
/// Not synchronized: ``DecodedModels`` holds it under its lock.
final class DecodedContextTable {
  private var ids: UnsafeMutablePointer<UInt64>
  /// Retained `AnyModelContext` pointers; nil is an empty slot.
  private var contexts: UnsafeMutablePointer<UnsafeMutableRawPointer?>
  private var mask = 15
  /// 64 less the slot count's power of two: a hash's top bits pick the home slot.
  private var shift: UInt64 = 64 - 4
  /// Whether ids are spread by Fibonacci hashing; at first an id's low bits are its home.
  private(set) var spread = false
  private(set) var count = 0

  /// An insert whose probe runs longer than this spreads the ids (see ``home(of:)``).
  private static let longestRun = 16

  init() {
    ids = .allocate(capacity: 16)
    contexts = .allocate(capacity: 16)
    contexts.initialize(repeating: nil, count: 16)
  }

  deinit {
    for index in 0...mask {
      if let raw = contexts[index] { Unmanaged<AnyModelContext>.fromOpaque(raw).release() }
    }
    ids.deallocate()
    contexts.deallocate()
  }

  /// The context with `id`, if held.
  subscript(id: ModelID) -> AnyModelContext? {
    var index = home(of: id.rawValue)
    while let raw = contexts[index] {
      if ids[index] == id.rawValue { return Unmanaged<AnyModelContext>.fromOpaque(raw).takeUnretainedValue() }
      index = (index + 1) & mask
    }
    return nil
  }

  /// Holds `context` under its id; the id must not be held yet.
  func insert(_ context: AnyModelContext) {
    if (count + 1) * 2 > mask + 1 { rehash(into: (mask + 1) * 2) }
    let raw = Unmanaged.passRetained(context).toOpaque()
    if !place(context.id.rawValue, raw, limited: !spread) {
      spread = true
      rehash(into: mask + 1)
      place(context.id.rawValue, raw, limited: false)
    }
    count += 1
  }

  /// Puts `raw` in the first empty slot from `id`'s home. When `limited`, places nothing
  /// and returns false if that slot is more than ``longestRun`` slots away.
  @discardableResult
  private func place(_ id: UInt64, _ raw: UnsafeMutableRawPointer, limited: Bool) -> Bool {
    var index = home(of: id)
    var probes = 0
    while contexts[index] != nil {
      probes += 1
      if limited && probes > Self.longestRun { return false }
      index = (index + 1) & mask
    }
    ids[index] = id
    contexts[index] = raw
    return true
  }

  /// Where `id`'s probe starts. The ids of a snapshot come mostly in runs (each process
  /// counts its ids up from a random start), and a run's ids decoded in order land in
  /// neighbouring slots: the look-up before each insert reads a cache line the last one
  /// read. Fibonacci hashing spread them over the table, a cache miss each (a tenth of a
  /// restored model's decoding). Ids that do not come in runs, or that differ only in their
  /// high bits, make long probes; the first insert that probes longer than ``longestRun``
  /// switches the table to Fibonacci hashing for good.
  private func home(of id: UInt64) -> Int {
    spread ? Int(truncatingIfNeeded: (id &* 0x9E37_79B9_7F4A_7C15) >> shift) : Int(truncatingIfNeeded: id) & mask
  }

  /// Moves every entry into a table of `capacity` slots, homed as ``spread`` says.
  private func rehash(into capacity: Int) {
    let (oldIDs, oldContexts, oldCapacity) = (ids, contexts, mask + 1)
    ids = .allocate(capacity: capacity)
    contexts = .allocate(capacity: capacity)
    contexts.initialize(repeating: nil, count: capacity)
    mask = capacity - 1
    shift = UInt64(64 - capacity.trailingZeroBitCount)
    for index in 0..<oldCapacity {
      if let raw = oldContexts[index] { place(oldIDs[index], raw, limited: false) }
    }
    oldIDs.deallocate()
    oldContexts.deallocate()
  }
}
