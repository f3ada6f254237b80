import ArborJSON
import ArborRPC

/// Builds notification lines without re-encoding what many watchers share: the patch of
/// a revision is written once, and each watcher's line only adds its subscription number.
enum NotificationBytes {
  /// `{"jsonrpc":"2.0","method":"state.changed","params":{`, spelled once.
  private static let stateChangedPrefix = Array(#"{"jsonrpc":"2.0","method":""#.utf8) + Array(ArborNotification.stateChanged.rawValue.utf8)
    + Array(#"","params":{"#.utf8)

  private static let patchKey = Array(#""patch":"#.utf8)
  private static let revisionKey = Array(#","revision":"#.utf8)
  private static let subscriptionKey = Array(#","subscription":"#.utf8)

  /// `{"jsonrpc":"2.0","method":"state.changed","params":{"patch":…,"revision":R,"subscription":S}}\n`
  static func stateChanged(patchJSON: [UInt8], revision: UInt64, subscription: Int, extra: String = "") -> [UInt8] {
    var line: [UInt8] = []
    line.reserveCapacity(stateChangedPrefix.count + extra.utf8.count + patchJSON.count + 64)
    line.append(contentsOf: stateChangedPrefix)
    if !extra.isEmpty { line.append(contentsOf: extra.utf8) }
    line.append(contentsOf: patchKey)
    line.append(contentsOf: patchJSON)
    line.append(contentsOf: revisionKey)
    appendDecimal(revision, to: &line)
    line.append(contentsOf: subscriptionKey)
    if subscription < 0 { line.append(UInt8(ascii: "-")) }
    appendDecimal(subscription.magnitude, to: &line)
    line.append(UInt8(ascii: "}"))
    line.append(UInt8(ascii: "}"))
    line.append(0x0A)
    return line
  }

  /// Appends `number`'s decimal digits, without making a `String`.
  static func appendDecimal<Number: UnsignedInteger & FixedWidthInteger>(_ number: Number, to bytes: inout [UInt8]) {
    var value = UInt64(number)
    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
      var start = 20
      repeat {
        start -= 1
        digits[start] = UInt8(ascii: "0") + UInt8(value % 10)
        value /= 10
      } while value > 0
      bytes.append(contentsOf: UnsafeBufferPointer(rebasing: digits[start..<20]))
    }
  }

  /// What a path watch is sent for one revision, written once for all its watchers: the
  /// patch's JSON text, and `"exists":false,` when the watched path is gone.
  struct Patch {
    let json: [UInt8]
    let extra: String

    /// Nil when the revision did not touch the watched path.
    init?(_ view: ScopedPatch) {
      switch view {
      case .unchanged:
        return nil
      case .operations(let operations):
        json = NotificationBytes.patchJSON(operations)
        extra = ""
      case .value(let value):
        json = NotificationBytes.patchJSON([.replace(.root, value ?? .null)])
        extra = value == nil ? #""exists":false,"# : ""
      }
    }
  }

  /// A notification with arbitrary params.
  static func notification(_ method: String, _ params: JSONValue) -> [UInt8] {
    RPCRequest.notification(method, params: params).json.jsonLine
  }

  /// The JSON text of a list of patch operations.
  static func patchJSON(_ operations: [JSONPatchOperation]) -> [UInt8] {
    JSONPatch(operations).jsonBytes
  }
}
