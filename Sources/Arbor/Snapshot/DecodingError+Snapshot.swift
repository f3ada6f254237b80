extension SnapshotError {
  /// The snapshot error that tells a user what a decoding error means, with the JSON
  /// Pointer of the offending value.
  init(_ error: DecodingError) {
    let (path, reason) = error.location
    if case .dataCorrupted(let context) = error, context.codingPath.isEmpty {
      self = .malformed(reason: reason)
    } else {
      self = .invalidValue(path: path, reason: reason)
    }
  }
}
