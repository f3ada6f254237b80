import ArborTesting
import Foundation
import NIOCore
import NIOPosix

/// A plain HTTP/1.1 and WebSocket client over TCP, written out by hand so that tests can
/// send what real clients send and what they must not: headers too large, frames too long,
/// wrong tokens, a WebSocket that never reads. Every wait has a deadline.
enum HTTPTestClient {
  struct Reply: Sendable {
    var status: Int
    var headers: [String: String]
    var body: String
  }

  /// One request on its own connection (`Connection: close`), read to its end.
  static func get(
    port: Int, _ path: String, headers: [(String, String)] = [], host: String? = nil
  ) async throws -> Reply {
    let channel = try await connect(port: port)
    var request = "GET \(path) HTTP/1.1\r\nHost: \(host ?? "127.0.0.1:\(port)")\r\nConnection: close\r\n"
    for (name, value) in headers { request += "\(name): \(value)\r\n" }
    request += "\r\n"
    let bytes = try await withDeadline("a reply to GET \(path)", seconds: 20) { [request] in
      try await channel.executeThenClose { inbound, outbound in
        // Sending may fail once the server has answered and closed (a request too large).
        try? await outbound.write(ByteBuffer(string: request))
        var received: [UInt8] = []
        do {
          for try await chunk in inbound { received += Array(chunk.readableBytesView) }
        } catch where !received.isEmpty {
          // A server that answers before the request was all sent, then closes, resets
          // the connection: what it answered was read.
        }
        return received
      }
    }
    return try parse(bytes)
  }

  static func parse(_ bytes: [UInt8]) throws -> Reply {
    let text = String(decoding: bytes, as: UTF8.self)
    guard let end = text.range(of: "\r\n\r\n") else { throw HarnessError("no complete HTTP reply in \(text.prefix(300))") }
    let lines = text[..<end.lowerBound].split(separator: "\r\n")
    guard let statusLine = lines.first, statusLine.split(separator: " ").count >= 2,
      let status = Int(statusLine.split(separator: " ")[1])
    else { throw HarnessError("no status line in \(text.prefix(300))") }
    var headers: [String: String] = [:]
    for line in lines.dropFirst() {
      guard let colon = line.firstIndex(of: ":") else { continue }
      headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
    }
    return Reply(status: status, headers: headers, body: String(text[end.upperBound...]))
  }

  static func connect(port: Int, receiveBuffer: Int? = nil) async throws -> NIOAsyncChannel<ByteBuffer, ByteBuffer> {
    try await withDeadline("a TCP connection to 127.0.0.1:\(port)", seconds: 10) {
      var bootstrap = ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
      if let receiveBuffer { bootstrap = bootstrap.channelOption(.socketOption(.so_rcvbuf), value: SocketOptionValue(receiveBuffer)) }
      return try await bootstrap.connect(host: "127.0.0.1", port: port) { channel in
        channel.eventLoop.makeCompletedFuture { try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel) }
      }
    }
  }
}

/// A WebSocket client: the upgrade, masked frames out, frames in.
final class WebSocketTestClient: @unchecked Sendable {
  // Unchecked: one test task uses a client at a time.
  struct Frame: Sendable {
    var opcode: UInt8
    var payload: [UInt8]
    var text: String { String(decoding: payload, as: UTF8.self) }
    /// A close frame's code.
    var closeCode: Int? { opcode == 8 && payload.count >= 2 ? Int(payload[0]) << 8 | Int(payload[1]) : nil }
    var closeReason: String { opcode == 8 && payload.count > 2 ? String(decoding: payload[2...], as: UTF8.self) : "" }
  }

  private(set) var upgrade = HTTPTestClient.Reply(status: 0, headers: [:], body: "")
  private var iterator: NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator
  private let outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>
  private var buffered: [UInt8] = []

  private init(iterator: NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator, outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>) {
    self.iterator = iterator
    self.outbound = outbound
  }

  /// Opens `/rpc` (or `path`), runs `body` with the client, and closes the connection.
  /// Throws with the reply when the server does not switch protocols. `host` is the `Host`
  /// header's value (`127.0.0.1:PORT` unless given).
  static func with<T: Sendable>(
    port: Int, path: String = "/rpc", protocols: [String] = ["arbor.jsonrpc"], headers: [(String, String)] = [],
    host: String? = nil, receiveBuffer: Int? = nil, _ body: (WebSocketTestClient) async throws -> T
  ) async throws -> T {
    let channel = try await HTTPTestClient.connect(port: port, receiveBuffer: receiveBuffer)
    return try await channel.executeThenClose { inbound, outbound in
      let client = WebSocketTestClient(iterator: inbound.makeAsyncIterator(), outbound: outbound)
      try await client.handshake(host: host ?? "127.0.0.1:\(port)", path: path, protocols: protocols, headers: headers)
      return try await body(client)
    }
  }

  private func handshake(host: String, path: String, protocols: [String], headers: [(String, String)]) async throws {
    var request = "GET \(path) HTTP/1.1\r\nHost: \(host)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
    request += "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
    if !protocols.isEmpty { request += "Sec-WebSocket-Protocol: \(protocols.joined(separator: ", "))\r\n" }
    for (name, value) in headers { request += "\(name): \(value)\r\n" }
    request += "\r\n"
    try await outbound.write(ByteBuffer(string: request))
    let marker: [UInt8] = Array("\r\n\r\n".utf8)
    let headEnd: Int = try await withDeadline("the reply to the WebSocket upgrade of \(path)", seconds: 20) {
      while true {
        if let end = self.buffered.firstRange(of: marker) { return end.upperBound }
        guard let chunk = try await self.iterator.next() else {
          throw HarnessError("the connection closed before the upgrade's reply: \(String(decoding: self.buffered, as: UTF8.self))")
        }
        self.buffered += Array(chunk.readableBytesView)
      }
    }
    upgrade = try HTTPTestClient.parse(Array(buffered[..<headEnd]))
    buffered.removeFirst(headEnd)
    guard upgrade.status == 101 else { throw HarnessError("the upgrade was answered \(upgrade.status): \(upgrade)") }
  }

  /// Sends one text frame (masked, as a client must).
  func send(_ text: String) async throws {
    try await sendFrame(opcode: 1, payload: Array(text.utf8))
  }

  /// Sends one frame; `masked: false` sends it without a mask, as a client must not.
  func sendFrame(opcode: UInt8, payload: [UInt8], final: Bool = true, masked: Bool = true) async throws {
    try await sendBytes(Self.frame(opcode: opcode, payload: payload, final: final, masked: masked))
  }

  /// Sends bytes as they are, in one write: several frames arrive together this way.
  func sendBytes(_ bytes: [UInt8]) async throws {
    try await outbound.write(ByteBuffer(bytes: bytes))
  }

  /// One frame's bytes, masked unless `masked` is false.
  static func frame(opcode: UInt8, payload: [UInt8], final: Bool = true, masked: Bool = true) -> [UInt8] {
    var frame: [UInt8] = [(final ? 0x80 : 0) | opcode]
    let count = payload.count
    let maskBit: UInt8 = masked ? 0x80 : 0
    if count < 126 {
      frame.append(maskBit | UInt8(count))
    } else if count <= 0xFFFF {
      frame += [maskBit | 126, UInt8(count >> 8), UInt8(count & 0xFF)]
    } else {
      frame.append(maskBit | 127)
      for shift in stride(from: 56, through: 0, by: -8) { frame.append(UInt8((count >> shift) & 0xFF)) }
    }
    guard masked else { return frame + payload }
    let mask: [UInt8] = [0x12, 0x34, 0x56, 0x78]
    frame += mask
    frame += payload.enumerated().map { $0.element ^ mask[$0.offset % 4] }
    return frame
  }

  /// The next frame that is not a ping (pings are answered), within `seconds`.
  func receive(seconds: Double = 20, what: String = "a WebSocket frame") async throws -> Frame {
    try await withDeadline(what, seconds: seconds) {
      while true {
        let frame = try await self.nextFrame()
        if frame.opcode == 9 {
          try await self.sendFrame(opcode: 10, payload: frame.payload)
          continue
        }
        return frame
      }
    }
  }

  /// The next text message as JSON-RPC, within `seconds`.
  func receiveJSON(seconds: Double = 20, what: String = "a JSON-RPC message") async throws -> [String: Any] {
    let frame = try await receive(seconds: seconds, what: what)
    guard frame.opcode == 1 else { throw HarnessError("expected a text frame for \(what), got opcode \(frame.opcode) \(frame.closeCode.map { "close \($0) \(frame.closeReason)" } ?? "")") }
    guard let object = try JSONSerialization.jsonObject(with: Data(frame.payload)) as? [String: Any] else {
      throw HarnessError("not a JSON object: \(frame.text)")
    }
    return object
  }

  /// Waits for the message with `id`, skipping notifications.
  func reply(to id: Int, seconds: Double = 20) async throws -> [String: Any] {
    while true {
      let message = try await receiveJSON(seconds: seconds, what: "the reply to request \(id)")
      if (message["id"] as? Int) == id { return message }
    }
  }

  private func nextFrame() async throws -> Frame {
    while true {
      if let (frame, used) = Self.decode(buffered) {
        buffered.removeFirst(used)
        return frame
      }
      guard let chunk = try await iterator.next() else { throw HarnessError("the WebSocket's connection closed") }
      buffered += Array(chunk.readableBytesView)
    }
  }

  private static func decode(_ bytes: [UInt8]) -> (Frame, Int)? {
    guard bytes.count >= 2 else { return nil }
    let opcode = bytes[0] & 0x0F
    var length = Int(bytes[1] & 0x7F)
    var offset = 2
    if length == 126 {
      guard bytes.count >= 4 else { return nil }
      length = Int(bytes[2]) << 8 | Int(bytes[3])
      offset = 4
    } else if length == 127 {
      guard bytes.count >= 10 else { return nil }
      length = bytes[2..<10].reduce(0) { $0 << 8 | Int($1) }
      offset = 10
    }
    guard bytes.count >= offset + length else { return nil }
    return (Frame(opcode: opcode, payload: Array(bytes[offset..<(offset + length)])), offset + length)
  }

  /// Sends a close frame.
  func close() async throws {
    try await sendFrame(opcode: 8, payload: [0x03, 0xE8])
  }
}
