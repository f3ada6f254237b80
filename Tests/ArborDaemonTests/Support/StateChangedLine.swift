import ArborJSON

#if canImport(Glibc)
  import Glibc
#endif

/// What a load test's watcher checks in a `state.changed` notification — its subscription,
/// its revision and whether it is a resync — read from the end of its text, where the
/// daemon writes them (members in order: `…"resync":true,"revision":12,"subscription":3}}`),
/// instead of parsing the whole line: a thousand watchers in a debug-built test process
/// parsed every patch on the same two cores as the daemons they measured. A line of
/// another shape is parsed (``parsed(_:)``).
///
/// ```swift
/// StateChangedLine(Array(#"{"jsonrpc":"2.0","method":"state.changed","params":{"patch":[],"revision":4,"subscription":2}}"#.utf8))
/// // subscription 2, revision 4, resync false
/// ```
struct StateChangedLine: Equatable {
  var subscription: Int64
  var revision: Int64
  var resync: Bool

  private static let start = #"{"jsonrpc":"2.0","method":"state.changed","params":{"#

  /// Nil when `line` does not end as the daemon ends a notification.
  init?(_ line: [UInt8]) {
    // Read through a pointer: the test process is a debug build, where `Array`'s generic
    // methods cost tens of nanoseconds a byte.
    guard let fields = line.withUnsafeBytes({ Self.fields(of: $0) }) else { return nil }
    self = fields
  }

  private static func fields(of line: UnsafeRawBufferPointer) -> StateChangedLine? {
    guard line.count > 2, has(start, at: 0, in: line), line[line.count - 1] == UInt8(ascii: "}"), line[line.count - 2] == UInt8(ascii: "}")
    else { return nil }
    var end = line.count - 2
    guard let subscription = number(named: "subscription", in: line, endingAt: &end), end > 0, line[end - 1] == UInt8(ascii: ",")
    else { return nil }
    end -= 1
    guard let revision = number(named: "revision", in: line, endingAt: &end) else { return nil }
    let resync = #""resync":true,"#
    return StateChangedLine(subscription: subscription, revision: revision, resync: end >= resync.utf8.count && has(resync, at: end - resync.utf8.count, in: line))
  }

  /// Whether `line` holds `text` at `offset`.
  private static func has(_ text: String, at offset: Int, in line: UnsafeRawBufferPointer) -> Bool {
    var text = text
    return text.withUTF8 { text in
      offset >= 0 && offset + text.count <= line.count && memcmp(line.baseAddress! + offset, text.baseAddress!, text.count) == 0
    }
  }

  init(subscription: Int64, revision: Int64, resync: Bool) {
    self.subscription = subscription
    self.revision = revision
    self.resync = resync
  }

  /// The same fields from a parsed message; nil for anything but a `state.changed`.
  static func parsed(_ message: JSONValue) -> StateChangedLine? {
    guard message["method"] == "state.changed", let params = message["params"],
      let revision = params["revision"]?.intValue, let subscription = params["subscription"]?.intValue
    else { return nil }
    return StateChangedLine(subscription: subscription, revision: revision, resync: params["resync"] != nil)
  }

  /// The digits of `"name":digits` that end at `end`; moves `end` to the member's start.
  private static func number(named name: String, in line: UnsafeRawBufferPointer, endingAt end: inout Int) -> Int64? {
    var digitsStart = end
    var value: Int64 = 0
    var scale: Int64 = 1
    while digitsStart > 0, line[digitsStart - 1] >= UInt8(ascii: "0"), line[digitsStart - 1] <= UInt8(ascii: "9"), end - digitsStart < 18 {
      digitsStart -= 1
      value += Int64(line[digitsStart] - UInt8(ascii: "0")) * scale
      scale *= 10
    }
    let key = "\"\(name)\":"
    guard digitsStart < end, has(key, at: digitsStart - key.utf8.count, in: line) else { return nil }
    end = digitsStart - key.utf8.count
    return value
  }
}
