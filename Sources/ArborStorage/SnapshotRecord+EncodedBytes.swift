import ArborJSON
import ArborRecords

extension SnapshotRecord {
  /// The record as JSON bytes, with the state written as it is (not re-encoded): what the
  /// store keeps, and what `andAnchor(restoring:)` reads.
  ///
  /// ```swift
  /// let bytes = try record.encodedBytes()
  /// ```
  public func encodedBytes() throws -> [UInt8] {
    var header = self
    header.state = .null
    guard case .object(var object) = try JSONValueEncoder().encode(header) else {
      throw EncodingError.invalidValue(self, .init(codingPath: [], debugDescription: "a snapshot record encodes as an object"))
    }
    object["state"] = state
    var bytes: [UInt8] = []
    JSONValue.object(object).writeJSON(to: &bytes)
    return bytes
  }
}
