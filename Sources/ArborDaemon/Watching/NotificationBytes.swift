import ArborJSON

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
    var line: [UInt8] = []
    JSONValue.object(["jsonrpc": "2.0", "method": .string(method), "params": params]).writeJSON(to: &line)
    line.append(0x0A)
    return line
  }

  /// The JSON text of a list of patch operations.
  static func patchJSON(_ operations: [JSONPatchOperation]) -> [UInt8] {
    var bytes: [UInt8] = []
    operations.json.writeJSON(to: &bytes)
    return bytes
  }
}

extension Array where Element == JSONPatchOperation {
  /// The operations as a JSON array, as RFC 6902 writes them.
  var json: JSONValue {
    .array(map { operation in
      switch operation {
      case .add(let path, let value): return ["op": "add", "path": .string(path.description), "value": value]
      case .remove(let path): return ["op": "remove", "path": .string(path.description)]
      case .replace(let path, let value): return ["op": "replace", "path": .string(path.description), "value": value]
      case .move(let from, let to): return ["op": "move", "from": .string(from.description), "path": .string(to.description)]
      case .copy(let from, let to): return ["op": "copy", "from": .string(from.description), "path": .string(to.description)]
      case .test(let path, let value): return ["op": "test", "path": .string(path.description), "value": value]
      }
    })
  }
}
