import ArborJSON
import ArborRPC

/// Builds notification lines without re-encoding what many watchers share: the patch of
/// a revision is written once, and each watcher's line only adds its subscription number.
enum NotificationBytes {
  /// `{"jsonrpc":"2.0","method":"state.changed","params":{"patch":…,"revision":R,"subscription":S}}\n`
  static func stateChanged(patchJSON: [UInt8], revision: UInt64, subscription: Int, extra: String = "") -> [UInt8] {
    var line: [UInt8] = []
    line.reserveCapacity(patchJSON.count + 120)
    line.append(contentsOf: #"{"jsonrpc":"2.0","method":"state.changed","params":{"#.utf8)
    line.append(contentsOf: extra.utf8)
    line.append(contentsOf: #""patch":"#.utf8)
    line.append(contentsOf: patchJSON)
    line.append(contentsOf: #","revision":"#.utf8)
    line.append(contentsOf: String(revision).utf8)
    line.append(contentsOf: #","subscription":"#.utf8)
    line.append(contentsOf: String(subscription).utf8)
    line.append(contentsOf: "}}\n".utf8)
    return line
  }

  /// A notification with arbitrary params.
  static func notification(_ method: String, _ params: JSONValue) -> [UInt8] {
    RPCRequest.notification(method, params: params).json.jsonLine
  }

  /// The JSON text of a list of patch operations.
  static func patchJSON(_ operations: [JSONPatchOperation]) -> [UInt8] {
    var bytes: [UInt8] = []
    // JSONPatch's own Codable form (RFC 6902); encoding JSON values cannot fail.
    ((try? JSONValueEncoder().encode(JSONPatch(operations))) ?? []).writeJSON(to: &bytes)
    return bytes
  }
}
