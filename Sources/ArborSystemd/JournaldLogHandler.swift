import CSystemd
import Logging

#if canImport(Glibc)
  import Glibc
#endif

/// A swift-log handler that writes to journald with structured fields: `MESSAGE`,
/// `PRIORITY`, `SYSLOG_IDENTIFIER`, `CODE_FILE`, `CODE_LINE`, `CODE_FUNC`, `LOGGER`, and
/// each metadata entry as an upper-case field (`request-id` becomes `REQUEST_ID`), so that
/// `journalctl -u app REQUEST_ID=7` finds it.
///
/// Use it when the service's standard error is connected to the journal
/// (``JournalStream/isStandardError``); otherwise log plain lines to standard error.
///
/// ```swift
/// LoggingSystem.bootstrap { label in
///   JournalStream.isStandardError
///     ? JournaldLogHandler(label: label, identifier: "counterfactd")
///     : StreamLogHandler.standardError(label: label)
/// }
/// ```
public struct JournaldLogHandler: LogHandler {
  public var logLevel: Logger.Level = .info
  public var metadata: Logger.Metadata = [:]
  public var metadataProvider: Logger.MetadataProvider?
  public let label: String
  public let identifier: String

  public init(label: String, identifier: String, metadataProvider: Logger.MetadataProvider? = nil) {
    self.label = label
    self.identifier = identifier
    self.metadataProvider = metadataProvider
  }

  public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
    get { metadata[key] }
    set { metadata[key] = newValue }
  }

  public func log(event: LogEvent) {
    var merged = metadata
    if let provided = metadataProvider?.get() { merged.merge(provided) { _, new in new } }
    if let extra = event.metadata { merged.merge(extra) { _, new in new } }
    let fields = Self.fields(
      message: "\(event.message)", level: event.level, identifier: identifier, label: label, metadata: merged,
      file: event.file, function: event.function, line: event.line)
    Self.send(fields)
  }

  /// The journal fields of one entry, in the order they are sent.
  static func fields(
    message: String, level: Logger.Level, identifier: String, label: String, metadata: Logger.Metadata,
    file: String, function: String, line: UInt
  ) -> [(String, String)] {
    var fields: [(String, String)] = [
      ("MESSAGE", message),
      ("PRIORITY", String(priority(level))),
      ("SYSLOG_IDENTIFIER", identifier),
      ("LOGGER", label),
      ("CODE_FILE", file),
      ("CODE_LINE", String(line)),
      ("CODE_FUNC", function),
    ]
    let taken = Set(fields.map(\.0))
    for (key, value) in metadata.sorted(by: { $0.key < $1.key }) {
      guard let name = fieldName(key), !taken.contains(name) else { continue }
      fields.append((name, "\(value)"))
    }
    return fields
  }

  /// syslog's priorities: 2 critical … 7 debug.
  static func priority(_ level: Logger.Level) -> Int {
    switch level {
    case .trace, .debug: return 7
    case .info: return 6
    case .notice: return 5
    case .warning: return 4
    case .error: return 3
    case .critical: return 2
    }
  }

  /// A journal field name for a metadata key: upper-case letters, digits and `_`, not
  /// starting with `_` or a digit (journald drops such fields); nil when nothing is left.
  static func fieldName(_ key: String) -> String? {
    var name = String(key.uppercased().map { ($0.isASCII && ($0.isLetter || $0.isNumber)) ? $0 : "_" })
    while name.first == "_" || name.first?.isNumber == true { name.removeFirst() }
    guard !name.isEmpty else { return nil }
    return String(name.prefix(64))
  }

  /// Sends the fields with `sd_journal_sendv` (one `FIELD=value` iovec each).
  static func send(_ fields: [(String, String)]) {
    var buffer: [UInt8] = []
    var ranges: [Range<Int>] = []
    for (name, value) in fields {
      let start = buffer.count
      buffer.append(contentsOf: name.utf8)
      buffer.append(UInt8(ascii: "="))
      buffer.append(contentsOf: value.utf8)
      ranges.append(start..<buffer.count)
    }
    buffer.withUnsafeMutableBytes { bytes in
      var vectors = ranges.map { range in
        iovec(iov_base: bytes.baseAddress! + range.lowerBound, iov_len: range.count)
      }
      _ = sd_journal_sendv(&vectors, Int32(vectors.count))
    }
  }
}

extension JournaldLogHandler {
  /// The handler a service should log with: journald's when standard error is the journal
  /// (``JournalStream/isStandardError``), plain lines on standard error otherwise.
  ///
  /// ```swift
  /// let logger = Logger(label: "counterfactd") { JournaldLogHandler.forStandardError(label: $0, identifier: "counterfactd") }
  /// ```
  public static func forStandardError(label: String, identifier: String) -> any LogHandler {
    if JournalStream.isStandardError { return JournaldLogHandler(label: label, identifier: identifier) }
    return StreamLogHandler.standardError(label: label)
  }
}

/// Whether the process's standard error goes to the journal: `$JOURNAL_STREAM` (set by
/// systemd for `StandardError=journal`) names the device and inode of that stream.
public enum JournalStream {
  public static var isStandardError: Bool {
    guard let value = getenv("JOURNAL_STREAM").map({ String(cString: $0) }) else { return false }
    let parts = value.split(separator: ":")
    guard parts.count == 2, let device = UInt64(parts[0]), let inode = UInt64(parts[1]) else { return false }
    var status = stat()
    guard fstat(2, &status) == 0 else { return false }
    return UInt64(status.st_dev) == device && UInt64(status.st_ino) == inode
  }
}

/// The former name of ``JournaldLogHandler``: "journal" in Arbor is the SQLite journal of
/// revisions; systemd's is journald.
@available(*, deprecated, renamed: "JournaldLogHandler")
public typealias JournalLogHandler = JournaldLogHandler
