import CSystemd

#if canImport(Glibc)
  import Glibc
#endif

/// The sockets systemd passed to the service (socket activation: `$LISTEN_FDS`,
/// `$LISTEN_PID`, `$LISTEN_FDNAMES`), read once with `sd_listen_fds_with_names`, which
/// also unsets those variables so that child processes do not take them.
///
/// ```swift
/// if let socket = ListenSockets.take().first { print("adopting fd \(socket.descriptor) named \(socket.name)") }
/// ```
public enum ListenSockets {
  public struct Socket: Sendable, Hashable {
    public var descriptor: Int32
    /// `FileDescriptorName=` of the socket unit, or `unknown`.
    public var name: String

    /// A socket passed some other way, under `name`.
    ///
    /// ```swift
    /// let socket = ListenSockets.Socket(descriptor: 3, name: "socket")
    /// ```
    public init(descriptor: Int32, name: String) {
      self.descriptor = descriptor
      self.name = name
    }
  }

  /// The passed sockets, from file descriptor 3 on; empty without socket activation.
  public static func take() -> [Socket] {
    var names: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
    let count = sd_listen_fds_with_names(1, &names)
    guard count > 0 else { return [] }
    defer {
      if let names {
        for index in 0..<Int(count) { free(names[index]) }
        free(names)
      }
    }
    return (0..<count).map { index in
      let name = names?[Int(index)].map { String(cString: $0) } ?? "unknown"
      return Socket(descriptor: SD_LISTEN_FDS_START + index, name: name)
    }
  }
}
