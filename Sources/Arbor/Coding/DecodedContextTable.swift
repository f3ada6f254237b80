/// The contexts one decode has made, by id: an open-addressing table (linear probing) that
/// keeps each id beside an unretained pointer to its context, at most half full.
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
  /// The contexts, retained once each (the slots point at them unretained).
  private var held: [AnyModelContext] = []
  private var ids: UnsafeMutablePointer<UInt64>
  /// Unretained `AnyModelContext` pointers; nil is an empty slot.
  private var contexts: UnsafeMutablePointer<UnsafeMutableRawPointer?>
  private var mask = 15
  /// 64 less the slot count's power of two: a hash's top bits pick the home slot.
  private var shift: UInt64 = 64 - 4
  /// Whether ids are spread by Fibonacci hashing; at first an id's low bits are its home.
  private(set) var spread = false
  private(set) var count = 0

  /// A probe longer than this spreads the ids (see ``home(of:)``).
  private static let longestRun = 16

  init() {
    ids = .allocate(capacity: 16)
    contexts = .allocate(capacity: 16)
    contexts.initialize(repeating: nil, count: 16)
  }

  deinit {
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
    if (count + 1) * 2 > mask + 1 { grow() }
    held.append(context)
    place(context.id.rawValue, Unmanaged.passUnretained(context).toOpaque())
    count += 1
  }

  private func place(_ id: UInt64, _ raw: UnsafeMutableRawPointer) {
    var index = home(of: id)
    var probes = 0
    while contexts[index] != nil {
      index = (index + 1) & mask
      probes += 1
      if probes > Self.longestRun, !spread {
        spread = true
        rehash(into: mask + 1)
        return place(id, raw)
      }
    }
    ids[index] = id
    contexts[index] = raw
  }

  /// Where `id`'s probe starts. The ids of a snapshot come mostly in runs (each process
  /// counts its ids up from a random start), and a run's ids decoded in order land in
  /// neighbouring slots: the look-up before each insert reads a cache line the last one
  /// read. Fibonacci hashing spread them over the table, a cache miss each (a tenth of a
  /// restored model's decoding). Ids that do not come in runs, or that differ only in their
  /// high bits, make long probes; the first probe longer than ``longestRun`` switches the
  /// table to Fibonacci hashing for good.
  private func home(of id: UInt64) -> Int {
    spread ? Int(truncatingIfNeeded: (id &* 0x9E37_79B9_7F4A_7C15) >> shift) : Int(truncatingIfNeeded: id) & mask
  }

  private func grow() {
    rehash(into: (mask + 1) * 2)
  }

  /// Moves every entry into a table of `capacity` slots.
  private func rehash(into capacity: Int) {
    let (oldIDs, oldContexts, oldCapacity) = (ids, contexts, mask + 1)
    ids = .allocate(capacity: capacity)
    contexts = .allocate(capacity: capacity)
    contexts.initialize(repeating: nil, count: capacity)
    mask = capacity - 1
    shift = UInt64(64 - capacity.trailingZeroBitCount)
    for index in 0..<oldCapacity {
      if let raw = oldContexts[index] { place(oldIDs[index], raw) }
    }
    oldIDs.deallocate()
    oldContexts.deallocate()
  }
}
