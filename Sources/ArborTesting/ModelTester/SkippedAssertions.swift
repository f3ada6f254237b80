/// Where `showSkippedAssertions` writes what a test skipped: standard output, unless a
/// test of the testers captures it.
package enum SkippedAssertions {
  /// Receives the text instead of standard output while bound (tests of the testers).
  @TaskLocal package static var capture: (@Sendable (String) -> Void)?

  static func write(_ text: String) {
    if let capture { capture(text) } else { print(text) }
  }
}
