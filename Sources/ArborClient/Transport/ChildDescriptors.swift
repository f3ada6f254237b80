import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// What a child process started with `posix_spawn` takes of its parent's descriptors: only
/// what the spawn's file actions give it.
///
/// A pipe the parent made without close-on-exec (a user's own, or a test's) would otherwise
/// stay open in the child for as long as it lives, and whoever reads the pipe's other end
/// would wait for an end that comes only when the child exits.
///
/// ```swift
/// var actions = posix_spawn_file_actions_t()
/// posix_spawn_file_actions_init(&actions)
/// posix_spawn_file_actions_adddup2(&actions, input, 0)
/// try ChildDescriptors.closeAllFrom(3, in: &actions)
/// ```
package enum ChildDescriptors {
  /// Adds to `actions` the closing of every descriptor from `lowest` up, after the dups
  /// before it (glibc's `posix_spawn_file_actions_addclosefrom_np`, 2.34 and later, which
  /// the Glibc module does not declare).
  package static func closeAllFrom(_ lowest: Int32, in actions: inout posix_spawn_file_actions_t) throws(ChildDescriptorsError) {
    guard let closeFrom else { throw ChildDescriptorsError("this C library has no posix_spawn_file_actions_addclosefrom_np (glibc 2.34 or later has)") }
    let status = closeFrom(&actions, lowest)
    guard status == 0 else { throw ChildDescriptorsError("posix_spawn_file_actions_addclosefrom_np: \(String(cString: strerror(status)))") }
  }

  /// A pipe whose two ends are close-on-exec from the start (`pipe2` with `O_CLOEXEC`), so
  /// that no child another thread spawns meanwhile takes them.
  package static func pipe() throws(ChildDescriptorsError) -> (read: Int32, write: Int32) {
    var ends: [Int32] = [-1, -1]
    guard let pipe2 else { throw ChildDescriptorsError("this C library has no pipe2") }
    guard pipe2(&ends, O_CLOEXEC) == 0 else { throw ChildDescriptorsError("cannot make a pipe: \(String(cString: strerror(errno)))") }
    return (ends[0], ends[1])
  }

  /// The next connection of `listener`, close-on-exec from the start (`accept4` with
  /// `SOCK_CLOEXEC`), so that no child another thread spawns meanwhile takes a copy, which
  /// would keep the connection open after it is closed here; -1 with `errno` set when the
  /// accept fails, as `accept`.
  ///
  /// ```swift
  /// let connection = try ChildDescriptors.accept(listener)
  /// ```
  package static func accept(_ listener: Int32) throws(ChildDescriptorsError) -> Int32 {
    guard let accept4 else { throw ChildDescriptorsError("this C library has no accept4") }
    return accept4(listener, nil, nil, Int32(SOCK_CLOEXEC.rawValue))
  }

  private typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
  private typealias Pipe2 = @convention(c) (UnsafeMutablePointer<Int32>, Int32) -> Int32
  private typealias Accept4 = @convention(c) (Int32, UnsafeMutablePointer<sockaddr>?, UnsafeMutablePointer<socklen_t>?, Int32) -> Int32

  private static let closeFrom: CloseFrom? = symbol("posix_spawn_file_actions_addclosefrom_np")
  private static let pipe2: Pipe2? = symbol("pipe2")
  private static let accept4: Accept4? = symbol("accept4")

  private static func symbol<Function>(_ name: String) -> Function? {
    // RTLD_DEFAULT: the C library the process already has.
    guard let address = dlsym(UnsafeMutableRawPointer(bitPattern: 0), name) else { return nil }
    return unsafeBitCast(address, to: Function.self)
  }
}

/// Why a child's descriptors could not be set up.
package struct ChildDescriptorsError: Error, CustomStringConvertible {
  package let description: String
  package init(_ description: String) { self.description = description }
}
