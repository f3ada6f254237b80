#if canImport(Glibc)
  import Glibc
#endif

/// `accept4(listener, nil, nil, SOCK_CLOEXEC)`: a connection accepted close-on-exec in the
/// same call. An `accept` followed by `fcntl(FD_CLOEXEC)` leaves a window in which a
/// process another test spawns meanwhile gets a copy of the socket if the spawn passes
/// every descriptor not marked close-on-exec (Foundation's `Process` does): closing the
/// test's own descriptor then ends nothing, and a peer waiting for the reset waits in vain
/// (`CloseOnExecAcceptTests`). Glibc's module does not export `accept4` to Swift, so it is
/// looked up in the C library.
///
/// ```swift
/// let connection = CloseOnExecAccept.accept(listener)   // -1 with errno, as accept
/// ```
enum CloseOnExecAccept {
  private typealias Accept4 = @convention(c) (Int32, UnsafeMutablePointer<sockaddr>?, UnsafeMutablePointer<socklen_t>?, Int32) -> Int32

  private static let accept4: Accept4? = {
    guard let symbol = dlsym(nil /* RTLD_DEFAULT */, "accept4") else { return nil }
    return unsafeBitCast(symbol, to: Accept4.self)
  }()

  /// The next connection of `listener`, close-on-exec; -1 with `errno` set on failure.
  static func accept(_ listener: Int32) -> Int32 {
    guard let accept4 else {
      // A C library without accept4: the two calls, with their window.
      let connection = Glibc.accept(listener, nil, nil)
      if connection >= 0 { _ = fcntl(connection, F_SETFD, FD_CLOEXEC) }
      return connection
    }
    return accept4(listener, nil, nil, Int32(SOCK_CLOEXEC.rawValue))
  }
}
