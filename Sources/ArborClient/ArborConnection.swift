import ArborLocking
import ArborJSON
import ArborRPC
import NIOCore
import NIOPosix

/// One connection to an Arbor daemon's socket: calls with replies matched by id, and the
/// notifications of its watches as an `AsyncSequence`.
///
/// ```swift
/// let connection = try await ArborConnection.connect(to: "/run/arbor/counterfactd.sock")
/// let state = try await connection.call("state.get", ["path": "/counters"])
/// _ = try await connection.call("state.watch")
/// for await notification in connection.notifications { print(notification.params ?? nil) }
/// ```
public final class ArborConnection: ArborCaller {
  private struct State {
    var writer: NIOAsyncChannelOutboundWriter<ByteBuffer>?
    var channel: (any Channel)?
    var pending: [RPCID: Pending] = [:]
    var nextID: Int64 = 1
    var closed = false
    /// Set by ``close()``: the end is this side's, not news from the other.
    var closedHere = false
    /// Why the connection ended, once it has (what waiting calls are failed with).
    var lost: ArborClientError?
  }

  /// What a call or a batch gets back: one response, or the array of a batch's responses.
  private enum Reply {
    case single(RPCResponse)
    case batch([RPCResponse])
  }

  /// A call (or a batch, by its first id) between its request being written and its reply
  /// being taken.
  private enum Pending {
    case expected
    case arrived(Reply)
    case waiting(CheckedContinuation<Reply, any Error>)
  }

  private let state = LockedState(State())
  private let notificationContinuation: AsyncStream<RPCRequest>.Continuation
  private let otherContinuation: AsyncStream<JSONValue>.Continuation
  /// The notifications the daemon sends (`state.changed`, `events.emitted`, `watch.closed`).
  /// One consumer.
  public let notifications: AsyncStream<RPCRequest>
  /// Lines that are neither a reply to a call or batch of this connection nor a
  /// notification: replies with a `null` id (parse errors), lines that are not JSON (as
  /// strings), replies to requests sent with ``sendRaw(_:)``. One consumer.
  public let otherMessages: AsyncStream<JSONValue>
  private let maxLineLength: Int
  /// The ssh process that carries the connection, and the address it was started for;
  /// nil for a socket.
  private let transport: (process: SSHProcess, address: String)?

  /// A connection not yet started; `transport` for one through ssh.
  init(maxLineLength: Int, transport: (process: SSHProcess, address: String)? = nil) {
    self.maxLineLength = maxLineLength
    self.transport = transport
    (notifications, notificationContinuation) = AsyncStream.makeStream(bufferingPolicy: .unbounded)
    (otherMessages, otherContinuation) = AsyncStream.makeStream(bufferingPolicy: .unbounded)
  }

  /// Connects to the daemon's socket.
  public static func connect(to path: String, maxLineLength: Int = 64 << 20) async throws(ArborClientError) -> ArborConnection {
    let channel: NIOAsyncChannel<ByteBuffer, ByteBuffer>
    do {
      channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
        .channelOption(.allowRemoteHalfClosure, value: true)
        .connect(unixDomainSocketPath: path) { channel in
          channel.eventLoop.makeCompletedFuture {
            try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
          }
        }
    } catch {
      throw .cannotConnect(path: path, reason: "\(error)")
    }
    return await start(channel, connection: ArborConnection(maxLineLength: maxLineLength))
  }

  /// Reads `channel` into `connection` on a task of its own; returns once the connection
  /// can write.
  static func start(_ channel: NIOAsyncChannel<ByteBuffer, ByteBuffer>, connection: ArborConnection) async -> ArborConnection {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      let ready = ResumeOnce(continuation)
      Task {
        do {
          try await channel.executeThenClose { inbound, outbound in
            connection.state.withLock {
              $0.writer = outbound
              $0.channel = channel.channel
            }
            ready.resume()
            try await connection.read(inbound)
          }
        } catch {}
        ready.resume()
        connection.state.withLock { $0.closed = true }
        connection.closedByPeer(await connection.lossError())
      }
    }
    return connection
  }

  /// Why the connection ended: ``ArborClientError/connectionClosed`` when this side closed
  /// it or the daemon did (a socket's end, or ssh's exit with the bridge's status 0 or 3);
  /// ``ArborClientError/transportEnded(address:reason:)`` with ssh's last line of standard
  /// error when ssh itself ended otherwise (the network, sshd, a signal).
  func lossError() async -> ArborClientError {
    guard let transport, !state.withLock({ $0.closedHere }) else { return .connectionClosed }
    let exit = await transport.process.endedOrTerminated(after: .seconds(2))
    if let status = exit.status, status == 0 || status == 3 { return .connectionClosed }
    return .transportEnded(address: transport.address, reason: exit.reason)
  }

  /// Why the connection ended, once it has; nil while it is open.
  var endReason: ArborClientError? { state.withLock { $0.closed ? ($0.lost ?? .connectionClosed) : nil } }

  /// The ssh process of an ssh connection.
  var sshProcess: SSHProcess? { transport?.process }

  /// Calls a method and returns its result; the daemon's error is thrown as
  /// ``ArborClientError/daemon(_:)``.
  @discardableResult
  public func call(_ method: String, _ params: JSONValue? = nil) async throws(ArborClientError) -> JSONValue {
    let response = try await request(method, params)
    switch response.outcome {
    case .success(let result): return result
    case .failure(let error): throw .daemon(error)
    }
  }

  /// The JSON of a typed call's parameters; nil (no `params`) when there are none.
  static func encode<Params: Encodable>(_ params: Params, of method: ArborMethod) throws(ArborClientError) -> JSONValue? {
    if Params.self == NoParams.self { return nil }
    do {
      return try JSONValueEncoder().encode(params)
    } catch {
      throw .unencodableParams(method: method.rawValue, reason: "\(error)")
    }
  }

  /// A typed call's result read from the reply's JSON.
  static func decode<Result: Decodable>(_ type: Result.Type, from result: JSONValue, of method: ArborMethod) throws(ArborClientError) -> Result {
    do {
      return try JSONValueDecoder().decode(type, from: result)
    } catch {
      throw .malformedReply("the result of \(method.rawValue) does not read as \(Result.self): \(error)")
    }
  }

  /// Calls a method and returns the whole response.
  public func request(_ method: String, _ params: JSONValue? = nil) async throws(ArborClientError) -> RPCResponse {
    let id = nextIDs(1)
    let line = RPCRequest(method: method, params: params, id: .number(id)).json.jsonLine
    switch try await send(line, awaiting: .number(id)) {
    case .single(let response): return response
    case .batch: throw .malformedReply("an array came back for the single call \(id)")
    }
  }

  /// Sends several calls as one JSON-RPC batch (one line) and returns their outcomes in
  /// the order of `calls`. Watches cannot be batched (the daemon refuses them).
  ///
  /// ```swift
  /// let outcomes = try await connection.batch([("state.get", ["path": "/counters"]), ("daemon.status", nil)])
  /// if case .success(let counters) = outcomes[0] { print(counters) }
  /// ```
  public func batch(_ calls: [(method: String, params: JSONValue?)]) async throws(ArborClientError) -> [Result<JSONValue, RPCError>] {
    guard !calls.isEmpty else { return [] }
    let first = nextIDs(Int64(calls.count))
    let requests = calls.enumerated().map { offset, call in
      RPCRequest(method: call.method, params: call.params, id: .number(first + Int64(offset))).json
    }
    let responses: [RPCResponse]
    switch try await send(JSONValue.array(requests).jsonLine, awaiting: .number(first)) {
    case .batch(let all): responses = all
    case .single(let response): responses = [response]
    }
    let byID = Dictionary(responses.map { ($0.id, $0.outcome) }, uniquingKeysWith: { first, _ in first })
    return (0..<Int64(calls.count)).map { offset in
      byID[.number(first + offset)] ?? .failure(RPCError(code: -32603, message: "the daemon's batch reply has no response for id \(first + offset)"))
    }
  }

  /// Takes `count` consecutive request ids and returns the first.
  private func nextIDs(_ count: Int64) -> Int64 {
    state.withLock { state in
      defer { state.nextID += count }
      return state.nextID
    }
  }

  /// Writes one line and waits for the reply filed under `id`.
  private func send(_ line: [UInt8], awaiting id: RPCID) async throws(ArborClientError) -> Reply {
    let writer: NIOAsyncChannelOutboundWriter<ByteBuffer>? = state.withLock { state in
      guard !state.closed, let writer = state.writer else { return nil }
      state.pending[id] = .expected
      return writer
    }
    guard let writer else { throw await lossError() }
    do {
      try await writer.write(ByteBuffer(bytes: line))
    } catch {
      _ = state.withLock { $0.pending.removeValue(forKey: id) }
      throw await lossError()
    }
    do {
      return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Reply, any Error>) in
        let outcome: Result<Reply, ArborClientError>? = state.withLock { state in
          switch state.pending[id] {
          case .arrived(let reply)?:
            state.pending[id] = nil
            return .success(reply)
          case .expected?:
            state.pending[id] = .waiting(continuation)
            return nil
          case .waiting?, nil:
            return .failure(state.lost ?? .connectionClosed)
          }
        }
        switch outcome {
        case .success(let reply)?: continuation.resume(returning: reply)
        case .failure(let error)?: continuation.resume(throwing: error)
        case nil: break
        }
      }
    } catch let error as ArborClientError {
      throw error
    } catch {
      throw .connectionClosed
    }
  }

  /// Sends bytes as they are (tests of malformed input use it); replies arrive in
  /// ``otherMessages`` or as replies to the ids the bytes carry.
  public func sendRaw(_ bytes: [UInt8]) async throws(ArborClientError) {
    guard let writer = state.withLock({ $0.closed ? nil : $0.writer }) else { throw .connectionClosed }
    do {
      try await writer.write(ByteBuffer(bytes: bytes))
    } catch {
      throw .connectionClosed
    }
  }

  /// Closes the connection; calls still waiting fail with ``ArborClientError/connectionClosed``.
  /// Through ssh, the ssh process is ended (SIGTERM).
  public func close() {
    let channel = state.withLock { state -> (any Channel)? in
      state.closedHere = true
      defer {
        state.writer = nil
        state.channel = nil
      }
      return state.channel
    }
    channel?.close(promise: nil)
    // ssh goes at once: left to notice its closed pipes, it (and the remote bridge) would
    // stay until the daemon next wrote to a watch of this connection.
    transport?.process.terminate()
  }

  private func read(_ inbound: NIOAsyncChannelInboundStream<ByteBuffer>) async throws {
    var framer = LineFramer(maxLineLength: maxLineLength)
    for try await buffer in inbound {
      buffer.withUnsafeReadableBytes { framer.append(bytes: $0) }
      while let line = try framer.nextLine() {
        guard let value = try? JSONValue(parsing: line) else {
          otherContinuation.yield(.string(String(decoding: line, as: UTF8.self)))
          continue
        }
        route(value)
      }
    }
  }

  private func route(_ value: JSONValue) {
    if case .object(let members) = value, members["method"] != nil, members["id"] == nil,
      let notification = try? RPCRequest(validating: value)
    {
      notificationContinuation.yield(notification)
      return
    }
    if let response = RPCResponse(value), response.id != .null, deliver(.single(response), to: response.id) { return }
    if case .array(let members) = value, let first = members.first.flatMap(RPCResponse.init), first.id != .null {
      let responses = members.compactMap(RPCResponse.init)
      if responses.count == members.count, deliver(.batch(responses), to: first.id) { return }
    }
    otherContinuation.yield(value)
  }

  /// Hands a reply to the call waiting for it; false when no call of this connection has
  /// that id.
  private func deliver(_ reply: Reply, to id: RPCID) -> Bool {
    let waiting: CheckedContinuation<Reply, any Error>?? = state.withLock { state in
      switch state.pending[id] {
      case .expected?:
        state.pending[id] = .arrived(reply)
        return .some(nil)
      case .waiting(let continuation)?:
        state.pending[id] = nil
        return .some(continuation)
      case .arrived?, nil:
        return .none
      }
    }
    guard let waiting else { return false }
    waiting?.resume(returning: reply)
    return true
  }

  private func closedByPeer(_ error: ArborClientError) {
    let waiting = state.withLock { state -> [CheckedContinuation<Reply, any Error>] in
      state.closed = true
      state.lost = error
      state.writer = nil
      state.channel = nil
      defer { state.pending = state.pending.filter { if case .arrived = $0.value { return true } else { return false } } }
      return state.pending.values.compactMap { if case .waiting(let continuation) = $0 { return continuation } else { return nil } }
    }
    for continuation in waiting { continuation.resume(throwing: error) }
    notificationContinuation.finish()
    otherContinuation.finish()
  }
}

/// Resumes a continuation the first time only.
private final class ResumeOnce: Sendable {
  private let continuation: LockedState<CheckedContinuation<Void, Never>?>
  init(_ continuation: CheckedContinuation<Void, Never>) { self.continuation = LockedState(continuation) }
  func resume() {
    let taken = continuation.withLock { value -> CheckedContinuation<Void, Never>? in
      defer { value = nil }
      return value
    }
    taken?.resume()
  }
}
