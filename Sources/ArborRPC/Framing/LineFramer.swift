/// Splits a byte stream into lines (NDJSON framing) with a bound on line length.
///
/// Bytes arrive in chunks of any size; ``append(_:)`` keeps what it has not yet seen end,
/// and ``nextLine()`` returns each complete line without its `\n` (a `\r` before it is
/// dropped too). A line longer than `maxLineLength` is an error as soon as its length is
/// passed, so a client cannot make the reader hold more than that.
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

  public let maxLineLength: Int
  private var buffer: [UInt8] = []
  private var start = 0
  private var scanned = 0

  public init(maxLineLength: Int) {
    self.maxLineLength = maxLineLength
  }

  /// Bytes received but not yet returned as a line.
  public var pendingCount: Int { buffer.count - start }

  public mutating func append<Bytes: Sequence<UInt8>>(_ bytes: Bytes) {
    if start > 0 && start >= buffer.count / 2 {
      buffer.removeFirst(start)
      scanned -= start
      start = 0
    }
    buffer.append(contentsOf: bytes)
  }

  /// The next complete line, or nil when none has ended yet.
  public mutating func nextLine() throws(LineTooLong) -> ArraySlice<UInt8>? {
    while scanned < buffer.count {
      if buffer[scanned] == 0x0A {
        var end = scanned
        let line = start
        scanned += 1
        start = scanned
        if end > line && buffer[end - 1] == 0x0D { end -= 1 }
        guard end - line <= maxLineLength else { throw LineTooLong(limit: maxLineLength) }
        return buffer[line..<end]
      }
      scanned += 1
    }
    guard buffer.count - start <= maxLineLength else { throw LineTooLong(limit: maxLineLength) }
    return nil
  }
}
