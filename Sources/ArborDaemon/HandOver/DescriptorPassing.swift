#if canImport(Glibc)
  import Glibc
#endif

/// Messages with descriptors attached (`SCM_RIGHTS`) over a Unix socket of the
/// `SOCK_SEQPACKET` kind, whose messages keep their bounds: how an upgrading daemon hands
/// its sockets to the process it started (``DaemonUpgrade``).
///
/// ```swift
/// try DescriptorPassing.send(socket, payload: Array(#"{"names":["socket"]}"#.utf8), descriptors: [listener])
/// let message = try DescriptorPassing.receive(socket)   // nil once the peer has closed
/// ```
enum DescriptorPassing {
  /// At most this many descriptors go with one message (the kernel's `SCM_MAX_FD` is 253).
  static let descriptorsPerMessage = 250
  /// The largest payload a message may have.
  static let maxPayload = 1 << 20

  struct Failure: Error, CustomStringConvertible {
    let description: String
  }

  /// A pair of connected sockets for messages, both closed on exec.
  static func pair() throws(Failure) -> (Int32, Int32) {
    var ends: [Int32] = [-1, -1]
    guard socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &ends) == 0 else {
      throw Failure(description: "cannot make a socket pair: \(String(cString: strerror(errno)))")
    }
    return (ends[0], ends[1])
  }

  /// Sends `payload` with `descriptors` (at most ``descriptorsPerMessage``) in one message.
  /// Waits until the socket takes it.
  static func send(_ socket: Int32, payload: [UInt8], descriptors: [Int32] = []) throws(Failure) {
    precondition(descriptors.count <= descriptorsPerMessage, "at most \(descriptorsPerMessage) descriptors a message")
    var control = [UInt8](repeating: 0, count: descriptors.isEmpty ? 0 : space(descriptors.count))
    if !descriptors.isEmpty {
      control.withUnsafeMutableBytes { bytes in
        bytes.storeBytes(of: headerSize + descriptors.count * 4, toByteOffset: 0, as: Int.self)
        bytes.storeBytes(of: SOL_SOCKET, toByteOffset: MemoryLayout<Int>.size, as: Int32.self)
        bytes.storeBytes(of: rights, toByteOffset: MemoryLayout<Int>.size + 4, as: Int32.self)
        for (index, descriptor) in descriptors.enumerated() {
          bytes.storeBytes(of: descriptor, toByteOffset: headerSize + index * 4, as: Int32.self)
        }
      }
    }
    var body = payload
    let sent = withMessage(body: &body, control: &control) { message in
      while true {
        let sent = sendmsg(socket, &message, Int32(MSG_NOSIGNAL))
        if sent < 0 && errno == EINTR { continue }
        return sent
      }
    }
    guard sent == payload.count else {
      throw Failure(description: "cannot send to the other process: \(sent < 0 ? String(cString: strerror(errno)) : "sent \(sent) of \(payload.count) bytes")")
    }
  }

  /// Whether `socket` has a message (or its end) to read within `limit`; waits at most that.
  static func readable(_ socket: Int32, within limit: Duration) -> Bool {
    let deadline = ContinuousClock.now + limit
    while true {
      let left = deadline - ContinuousClock.now
      guard left > .zero else { return false }
      var poller = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
      let ready = poll(&poller, 1, Int32(min(Double(Int32.max), (left / .milliseconds(1)).rounded(.up))))
      if ready > 0 { return true }
      if ready < 0 && errno == EINTR { continue }
      return false
    }
  }

  /// The next message and the descriptors that came with it (closed on exec); nil once the
  /// other end is closed. Waits for it.
  static func receive(_ socket: Int32) throws(Failure) -> (payload: [UInt8], descriptors: [Int32])? {
    var body = [UInt8](repeating: 0, count: maxPayload)
    var control = [UInt8](repeating: 0, count: space(descriptorsPerMessage + 3))
    var controlLength = 0
    var flags: Int32 = 0
    let received = withMessage(body: &body, control: &control) { message in
      while true {
        let received = recvmsg(socket, &message, Int32(MSG_CMSG_CLOEXEC))
        if received < 0 && errno == EINTR { continue }
        controlLength = message.msg_controllen
        flags = message.msg_flags
        return received
      }
    }
    guard received >= 0 else { throw Failure(description: "cannot read from the other process: \(String(cString: strerror(errno)))") }
    var descriptors: [Int32] = []
    control.withUnsafeBytes { bytes in
      var offset = 0
      while offset + headerSize <= controlLength {
        let length = bytes.loadUnaligned(fromByteOffset: offset, as: Int.self)
        let level = bytes.loadUnaligned(fromByteOffset: offset + MemoryLayout<Int>.size, as: Int32.self)
        let type = bytes.loadUnaligned(fromByteOffset: offset + MemoryLayout<Int>.size + 4, as: Int32.self)
        guard length >= headerSize, offset + length <= controlLength else { break }
        if level == SOL_SOCKET && type == rights {
          for index in 0..<(length - headerSize) / 4 {
            descriptors.append(bytes.loadUnaligned(fromByteOffset: offset + headerSize + index * 4, as: Int32.self))
          }
        }
        offset += aligned(length)
      }
    }
    // A message cut short (more descriptors than the buffer had room for) loses some.
    if flags & Int32(MSG_CTRUNC) != 0 || flags & Int32(MSG_TRUNC) != 0 {
      for descriptor in descriptors { close(descriptor) }
      throw Failure(description: "a message from the other process was cut short")
    }
    if received == 0 && descriptors.isEmpty { return nil }
    return (Array(body[0..<received]), descriptors)
  }

  /// Runs `call` with a message header over `body` and `control` (none when empty).
  private static func withMessage(body: inout [UInt8], control: inout [UInt8], _ call: (inout msghdr) -> Int) -> Int {
    body.withUnsafeMutableBytes { body in
      control.withUnsafeMutableBytes { control in
        var vector = iovec(iov_base: body.baseAddress, iov_len: body.count)
        return withUnsafeMutablePointer(to: &vector) { vector in
          var message = msghdr()
          message.msg_iov = vector
          message.msg_iovlen = 1
          message.msg_control = control.count == 0 ? nil : control.baseAddress
          message.msg_controllen = control.count
          return call(&message)
        }
      }
    }
  }

  /// `SCM_RIGHTS`.
  private static let rights: Int32 = 1
  /// A control message's header (`struct cmsghdr`: a `size_t` length, a level, a type).
  private static let headerSize = MemoryLayout<Int>.size + 8

  /// `CMSG_SPACE` for `count` descriptors.
  private static func space(_ count: Int) -> Int { headerSize + aligned(count * 4) }

  private static func aligned(_ length: Int) -> Int {
    let unit = MemoryLayout<Int>.size
    return (length + unit - 1) / unit * unit
  }
}
