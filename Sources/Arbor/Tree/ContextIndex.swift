#if canImport(Glibc)
  import Glibc
#endif

/// A tree's anchored contexts by id, one word per slot: an open-addressing table (linear
/// probing) of retained context pointers, whose keys are the contexts' own ids.
///
/// A `[ModelID: AnyModelContext]` keeps a key, a value and a bit per bucket and grows at
/// three quarters full: at 100,000 models it held 262,144 buckets of 16 bytes, about 42
/// bytes per model. This table keeps only the pointer, reads the id from the context it
/// points to, and grows past seven eighths: 131,072 buckets of 8 bytes at 100,000, about
/// 10 bytes per model. A look-up costs a read of each context it probes; look-ups by id
/// are not on a write's path.
///
/// Not synchronized: the tree's lock guards it.
///
/// A table of 64 KiB or more is mapped from the kernel, not taken from `malloc`: glibc
/// raises its mmap threshold each time it frees a mapped block, so freeing each smaller
/// table as the index doubled made later large buffers (any array the process grows)
/// come from the heap, where freed ones stay resident. Measured at 100,000 models: 250 B
/// of resident growth per model with `malloc`, 195 B with mapped tables.
final class ContextIndex {
  /// Retained `AnyModelContext` pointers; nil is an empty slot.
  private var slots: UnsafeMutablePointer<UnsafeMutableRawPointer?>
  /// The slot count less one (a power of two less one).
  private var mask: Int
  /// 64 less the slot count's power of two: a hash's top bits pick the home slot.
  private var shift: UInt64
  /// Whether `slots` was mapped (see `allocateSlots`).
  private var mapped: Bool
  /// The contexts held.
  private(set) var count = 0

  init() {
    let capacity = 8
    (slots, mapped) = Self.allocateSlots(capacity)
    mask = capacity - 1
    shift = 64 - 3
  }

  deinit {
    for index in 0...mask {
      if let raw = slots[index] { Unmanaged<AnyModelContext>.fromOpaque(raw).release() }
    }
    Self.deallocateSlots(slots, capacity: mask + 1, mapped: mapped)
  }

  var isEmpty: Bool { count == 0 }

  /// The context with `id`, if held.
  subscript(id: ModelID) -> AnyModelContext? {
    var index = home(of: id)
    while let raw = slots[index] {
      let context = Unmanaged<AnyModelContext>.fromOpaque(raw).takeUnretainedValue()
      if context.id == id { return context }
      index = (index + 1) & mask
    }
    return nil
  }

  /// Holds `context` under its id, in place of any context held with the same id.
  func insert(_ context: AnyModelContext) {
    let id = context.id
    var index = home(of: id)
    while let raw = slots[index] {
      let held = Unmanaged<AnyModelContext>.fromOpaque(raw)
      if held.takeUnretainedValue().id == id {
        slots[index] = Unmanaged.passRetained(context).toOpaque()
        held.release()
        return
      }
      index = (index + 1) & mask
    }
    slots[index] = Unmanaged.passRetained(context).toOpaque()
    count += 1
    // Past seven eighths full, probe sequences grow long: double.
    if count > (mask + 1) - (mask + 1) / 8 { grow() }
  }

  /// Lets go of the context with `id`, if held.
  func remove(_ id: ModelID) {
    var index = home(of: id)
    while let raw = slots[index] {
      let held = Unmanaged<AnyModelContext>.fromOpaque(raw)
      if held.takeUnretainedValue().id == id {
        slots[index] = nil
        count -= 1
        closeGap(at: index)
        held.release()
        return
      }
      index = (index + 1) & mask
    }
  }

  /// The home slot of `id`: Fibonacci hashing, so that the sequential ids the process
  /// generates spread over the table.
  private func home(of id: ModelID) -> Int {
    Int(truncatingIfNeeded: (id.rawValue &* 0x9E37_79B9_7F4A_7C15) >> shift)
  }

  /// Moves back the entries after a freed slot that could not have been found past it
  /// (backward-shift deletion), so that a look-up may stop at the first empty slot.
  private func closeGap(at freed: Int) {
    var gap = freed
    var index = (freed + 1) & mask
    while let raw = slots[index] {
      let home = home(of: Unmanaged<AnyModelContext>.fromOpaque(raw).takeUnretainedValue().id)
      // The entry may move into the gap when its home is not in the cyclic range
      // (gap, index]: its probe from home passed the gap.
      let distanceToGap = (gap - home) & mask
      let distanceToIndex = (index - home) & mask
      if distanceToGap < distanceToIndex {
        slots[gap] = raw
        slots[index] = nil
        gap = index
      }
      index = (index + 1) & mask
    }
  }

  private func grow() {
    let (old, oldMapped) = (slots, mapped)
    let oldCapacity = mask + 1
    let capacity = oldCapacity * 2
    (slots, mapped) = Self.allocateSlots(capacity)
    mask = capacity - 1
    shift -= 1
    for index in 0..<oldCapacity {
      guard let raw = old[index] else { continue }
      var slot = home(of: Unmanaged<AnyModelContext>.fromOpaque(raw).takeUnretainedValue().id)
      while slots[slot] != nil { slot = (slot + 1) & mask }
      slots[slot] = raw
    }
    Self.deallocateSlots(old, capacity: oldCapacity, mapped: oldMapped)
  }

  /// Tables of this many slots or more are mapped (64 KiB).
  private static let mappedCapacity = 8_192

  /// `capacity` empty slots, and whether they were mapped.
  private static func allocateSlots(_ capacity: Int) -> (UnsafeMutablePointer<UnsafeMutableRawPointer?>, mapped: Bool) {
    #if canImport(Glibc)
      if capacity >= mappedCapacity {
        // Anonymous pages come zeroed: every slot is nil.
        let bytes = capacity * MemoryLayout<UnsafeMutableRawPointer?>.stride
        if let mapped = mmap(nil, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), mapped != MAP_FAILED {
          return (mapped.bindMemory(to: UnsafeMutableRawPointer?.self, capacity: capacity), true)
        }
      }
    #endif
    let slots = UnsafeMutablePointer<UnsafeMutableRawPointer?>.allocate(capacity: capacity)
    slots.initialize(repeating: nil, count: capacity)
    return (slots, false)
  }

  private static func deallocateSlots(_ slots: UnsafeMutablePointer<UnsafeMutableRawPointer?>, capacity: Int, mapped: Bool) {
    #if canImport(Glibc)
      if mapped {
        munmap(slots, capacity * MemoryLayout<UnsafeMutableRawPointer?>.stride)
        return
      }
    #endif
    slots.deallocate()
  }
}
