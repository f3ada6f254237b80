import Foundation

/// What a process's open descriptors are: the link of each in `/proc/PID/fd`
/// (`pipe:[inode]`, `socket:[inode]`, a path), by the descriptor's number.
///
/// ```swift
/// let sockets = ProcessDescriptors.targets(of: getpid()).filter { $0.target?.hasPrefix("socket:") == true }
/// ```
enum ProcessDescriptors {
  /// Each open descriptor's number and link (nil when it closed while being read), in the
  /// directory's order; empty when the process is gone.
  static func targets(of process: pid_t) -> [(descriptor: String, target: String?)] {
    let directory = "/proc/\(process)/fd"
    let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
    return names.map { name in (name, try? FileManager.default.destinationOfSymbolicLink(atPath: directory + "/" + name)) }
  }
}
