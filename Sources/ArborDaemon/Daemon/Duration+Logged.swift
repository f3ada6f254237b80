extension Duration {
  /// The duration as a log line says it: whole milliseconds (`"412 ms"`).
  ///
  /// ```swift
  /// logger.info("saved in \((ContinuousClock.now - started).logged)")
  /// ```
  var logged: String {
    let (seconds, attoseconds) = components
    return "\(seconds * 1_000 + attoseconds / 1_000_000_000_000_000) ms"
  }
}
