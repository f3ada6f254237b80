#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Splits a byte stream into lines (NDJSON framing) with a bound on line length.
///
/// Bytes arrive in chunks of any size; ``append(_:)`` keeps what it has not yet seen end,
/// and ``nextLine()`` returns each complete line without its `\n` (a `\r` before it is
/// dropped too). A line longer than `maxLineLength` is an error as soon as its length is
/// passed, so a client cannot make the reader hold more than that.
///
/// The framer does not keep the room a long line needed: once its bytes are consumed, a
/// buffer larger than ``retainedCapacity`` is let go of (``takeLine()`` hands a line that
/// fills the buffer over without copying it).
///
/// ```swift
/// var framer = LineFramer(maxLineLength: 1 << 24)
/// framer.append(Array("{\"a\":1}\n{\"b\"".utf8))
/// while let line = try framer.nextLine() { print(line.count) }   // 7
/// ```
public struct LineFramer: Sendable {
  /// The line being read has passed the limit.
  public struct LineTooLong: Error, Sendable, Hashable, CustomStringConvertible {
    public var limit: Int
    public init(limit: Int) { self.limit = limit }
    public var description: String { "a line is longer than the limit of \(limit) bytes" }
  }

  /// The most buffer capacity kept once everything in it has been consumed (64 KiB): a
  /// connection that sent one 16 MiB line does not keep 16 MiB for the rest of its life.
  public static let retainedCapacity = 64 << 10

  public let maxLineLength: Int
  private var buffer: [UInt8] = []
  private var start = 0
  private var scanned = 0

  public init(maxLineLength: Int) {
    self.maxLineLength = maxLineLength
  }

  /// Bytes received but not yet returned as a line.
  public var pendingCount: Int { buffer.count - start }

  /// The bytes received but not yet returned as a line (the start of the next one).
  ///
  /// ```swift
  /// framer.append(Array("{\"id\":".utf8))
  /// let rest = Array(framer.pendingBytes)   // {"id":
  /// ```
  public var pendingBytes: ArraySlice<UInt8> { buffer[start...] }

  /// The room the framer's buffer holds now, used or not.
  public var capacity: Int { buffer.capacity }

  public mutating func append<Bytes: Sequence<UInt8>>(_ bytes: Bytes) {
    compact()
    buffer.append(contentsOf: bytes)
  }

  /// Appends bytes held in memory: one copy, with no generic sequence to walk (a
  /// socket's read buffer hands its bytes this way).
  ///
  /// ```swift
  /// buffer.withUnsafeReadableBytes { framer.append(bytes: $0) }
  /// ```
  public mutating func append(bytes: UnsafeRawBufferPointer) {
    compact()
    buffer.append(contentsOf: bytes)
  }

  /// Drops consumed bytes once they are half the buffer, and lets go of a large buffer
  /// whose bytes were consumed (or that is mostly empty room).
  private mutating func compact() {
    guard start > 0 else { return }
    let pending = buffer.count - start
    if buffer.capacity > Self.retainedCapacity && buffer.capacity > 4 * pending {
      buffer = pending == 0 ? [] : Array(buffer[start...])
      scanned -= start
      start = 0
    } else if start >= buffer.count / 2 {
      buffer.removeFirst(start)
      scanned -= start
      start = 0
    }
  }

  /// The index of the next `\n` at or after `scanned`, found with `memchr`, or nil.
  private func newline(from index: Int) -> Int? {
    guard index < buffer.count else { return nil }
    return buffer.withUnsafeBufferPointer { bytes -> Int? in
      guard let base = bytes.baseAddress, let found = memchr(base + index, 0x0A, bytes.count - index) else { return nil }
      return base.distance(to: found.assumingMemoryBound(to: UInt8.self))
    }
  }

  /// Finds the next line: its bounds in `buffer` (without `\r\n`), with `start` and
  /// `scanned` moved past it.
  private mutating func nextBounds() throws(LineTooLong) -> Range<Int>? {
    guard let newline = newline(from: scanned) else {
      scanned = buffer.count
      // A `\r` at the end may begin the line's `\r\n`: it does not count against the limit
      // yet, so that a line is judged alike however its bytes were cut into reads.
      var pending = buffer.count - start
      if pending > 0 && buffer[buffer.count - 1] == 0x0D { pending -= 1 }
      guard pending <= maxLineLength else { throw LineTooLong(limit: maxLineLength) }
      return nil
    }
    var end = newline
    let line = start
    scanned = newline + 1
    start = scanned
    if end > line && buffer[end - 1] == 0x0D { end -= 1 }
    guard end - line <= maxLineLength else { throw LineTooLong(limit: maxLineLength) }
    return line..<end
  }

  /// The next complete line, or nil when none has ended yet. The slice shares the
  /// framer's buffer: copy it (or use ``takeLine()``) before appending again.
  public mutating func nextLine() throws(LineTooLong) -> ArraySlice<UInt8>? {
    guard let bounds = try nextBounds() else { return nil }
    return buffer[bounds]
  }

  /// The next complete line as an array of its own, or nil when none has ended yet.
  ///
  /// A line that is all the framer holds (the usual case for a long one) is handed over
  /// without a copy, and the framer starts again with an empty buffer.
  public mutating func takeLine() throws(LineTooLong) -> [UInt8]? {
    guard let bounds = try nextBounds() else { return nil }
    if bounds.lowerBound == 0 && start == buffer.count && buffer.count - bounds.upperBound <= 2 {
      var line: [UInt8] = []
      swap(&line, &buffer)
      line.removeLast(line.count - bounds.upperBound)
      start = 0
      scanned = 0
      return line
    }
    return Array(buffer[bounds])
  }
}
