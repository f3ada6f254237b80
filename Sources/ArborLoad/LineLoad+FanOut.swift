extension LineLoad {
  /// What the fan-out run measured: for each change, milliseconds from sending the
  /// intent until the last watcher had read its notification.
  public typealias FanOut = LatencySummary

  /// Opens `watchers` connections that each send `watch` (one line) and read its reply;
  /// then `changes` times, sends `change` on one more connection and waits until every
  /// watcher has read one more notification.
  ///
  /// ```swift
  /// let watch = Array(#"{"jsonrpc":"2.0","id":1,"method":"state.watch","params":{"path":"/count"}}"#.utf8) + [0x0A]
  /// let fan = try LineLoad.fanOut(socket: path, watchers: 1_000, changes: 200, watch: watch, change: increment)
  /// print(fan.p50, fan.p99, fan.max)
  /// ```
  public static func fanOut(socket path: String, watchers: Int, changes: Int, watch: [UInt8], change: [UInt8]) throws -> FanOut {
    var sockets: [RawSocket] = []
    defer { for socket in sockets { socket.close() } }
    let resultMarker = Array(#""result""#.utf8)
    for _ in 0..<watchers {
      var socket = try RawSocket(connectingTo: path)
      sockets.append(socket)
      try socket.send(watch)
      let reply = try socket.readLine()
      guard reply.contains(bytes: resultMarker) else { throw LoadError("the watch was refused: \(String(decoding: reply, as: UTF8.self))") }
      sockets[sockets.count - 1] = socket
    }
    var driver = try RawSocket(connectingTo: path)
    defer { driver.close() }
    let poller = try Poller()
    defer { poller.close() }
    for (index, socket) in sockets.enumerated() {
      socket.setNonBlocking()
      try poller.add(socket.fd, token: index)
    }
    var received = [Int](repeating: 0, count: watchers)
    var latencies: [Double] = []
    for round in 1...changes {
      let sent = monotonicNanoseconds()
      try driver.send(change)
      var reached = 0
      var last = sent
      while reached < watchers {
        for index in try poller.wait(timeoutMilliseconds: 10_000) {
          guard try sockets[index].fill() else { throw LoadError("the daemon closed a watcher's connection") }
          while sockets[index].nextLine() != nil {
            received[index] += 1
            if received[index] == round {
              reached += 1
              last = monotonicNanoseconds()
            }
          }
        }
      }
      latencies.append(Double(last - sent) / 1e6)
      let reply = try driver.readLine()
      guard reply.contains(bytes: resultMarker) else { throw LoadError("the change failed: \(String(decoding: reply, as: UTF8.self))") }
    }
    return LatencySummary(milliseconds: latencies)
  }
}
