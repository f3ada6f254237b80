import Foundation
import NIOConcurrencyHelpers

/// The temporary directories this test process made (``DaemonHarness/temporaryDirectory()``),
/// removed when it exits, so that runs of the suite do not fill `/tmp` (each makes about
/// 150, with their daemons' stores and logs). A failure's message carries what the
/// daemon logged; set `ARBOR_KEEP_TEST_DIRS=1` to keep the directories as well.
///
/// ```swift
/// TemporaryDirectories.remember(path)
/// ```
enum TemporaryDirectories {
  private static let made = NIOLockedValueBox<[String]>([])
  private static let removalAtExit: Void = {
    guard ProcessInfo.processInfo.environment["ARBOR_KEEP_TEST_DIRS"] == nil else { return }
    atexit { TemporaryDirectories.removeAll() }
  }()

  /// Removes `path` when the process exits.
  static func remember(_ path: String) {
    _ = removalAtExit
    made.withLockedValue { $0.append(path) }
  }

  private static func removeAll() {
    for path in made.withLockedValue({ $0 }) { try? FileManager.default.removeItem(atPath: path) }
  }
}
