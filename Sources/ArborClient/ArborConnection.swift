import ArborJSON
import ArborRPC
import NIOCore
import NIOPosix
import NIOConcurrencyHelpers

/// One connection to an Arbor daemon's socket: calls with replies matched by id, and the
/// notifications of its watches as an `AsyncSequence`.
///
/// ```swift
/// let connection = try await ArborConnection.connect(to: "/run/arbor/counterfactd.sock")
/// let state = try await connection.call("state.get", ["path": "/counters"])
/// _ = try await connection.call("state.watch")
/// for await notification in connection.notifications { print(notification.params ?? nil) }
/// ```
public final class ArborConnection: Sendable {
  private struct State {
    var writer: NIOAsyncChannelOutboundWriter<ByteBuffer>?
    var channel: (any Channel)?
    var pending: [RPCID: Pending] = [:]
    var nextID: Int64 = 1
    var closed = false
  }

  /// A call between its request being written and its reply being taken.
  private enum Pending {
    case expected
    case arrived(RPCResponse)
    case waiting(CheckedContinuation<RPCResponse, any Error>)
  }

  private let state = NIOLockedValueBox(State())
  private let notificationContinuation: AsyncStream<RPCRequest>.Continuation
  private let otherContinuation: AsyncStream<JSONValue>.Continuation
  /// The notifications the daemon sends (`state.changed`, `events.emitted`, `watch.closed`).
  /// One consumer.
  public let notifications: AsyncStream<RPCRequest>
  /// Lines that are neither a reply to a call of this connection nor a notification:
  /// batch replies and replies with a `null` id (parse errors). One consumer.
  public let otherMessages: AsyncStream<JSONValue>
  private let maxLineLength: Int

  private init(maxLineLength: Int) {
    self.maxLineLength = maxLineLength
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
    let connection = ArborConnection(maxLineLength: maxLineLength)
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      let ready = ResumeOnce(continuation)
      Task {
        do {
          try await channel.executeThenClose { inbound, outbound in
            connection.state.withLockedValue {
              $0.writer = outbound
              $0.channel = channel.channel
            }
            ready.resume()
            try await connection.read(inbound)
          }
        } catch {}
        ready.resume()
        connection.closedByPeer()
      }
    }
    return connection
  }

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

  /// Calls a method and returns the whole response.
  public func request(_ method: String, _ params: JSONValue? = nil) async throws(ArborClientError) -> RPCResponse {
    let id: RPCID = .number(state.withLockedValue { state in
      defer { state.nextID += 1 }
      return state.nextID
    })
    let buffer = ByteBuffer(bytes: RPCRequest(method: method, params: params, id: id).json.jsonLine)
    let writer: NIOAsyncChannelOutboundWriter<ByteBuffer>? = state.withLockedValue { state in
      guard !state.closed, let writer = state.writer else { return nil }
      state.pending[id] = .expected
      return writer
    }
    guard let writer else { throw .connectionClosed }
    do {
      try await writer.write(buffer)
    } catch {
      _ = state.withLockedValue { $0.pending.removeValue(forKey: id) }
      throw .connectionClosed
    }
    do {
      return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<RPCResponse, any Error>) in
        let outcome: Result<RPCResponse, ArborClientError>? = state.withLockedValue { state in
          switch state.pending[id] {
          case .arrived(let response)?:
            state.pending[id] = nil
            return .success(response)
          case .expected?:
            state.pending[id] = .waiting(continuation)
            return nil
          case .waiting?, nil:
            return .failure(.connectionClosed)
          }
        }
        switch outcome {
        case .success(let response)?: continuation.resume(returning: response)
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
    guard let writer = state.withLockedValue({ $0.closed ? nil : $0.writer }) else { throw .connectionClosed }
    do {
      try await writer.write(ByteBuffer(bytes: bytes))
    } catch {
      throw .connectionClosed
    }
  }

  /// Closes the connection; calls still waiting fail with ``ArborClientError/connectionClosed``.
  public func close() {
    let channel = state.withLockedValue { state -> (any Channel)? in
      defer {
        state.writer = nil
        state.channel = nil
      }
      return state.channel
    }
    channel?.close(promise: nil)
  }

  private func read(_ inbound: NIOAsyncChannelInboundStream<ByteBuffer>) async throws {
    var framer = LineFramer(maxLineLength: maxLineLength)
    for try await buffer in inbound {
      framer.append(buffer.readableBytesView)
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
    if let response = RPCResponse(value), response.id != .null {
      let waiting: CheckedContinuation<RPCResponse, any Error>?? = state.withLockedValue { state in
        switch state.pending[response.id] {
        case .expected?:
          state.pending[response.id] = .arrived(response)
          return .some(nil)
        case .waiting(let continuation)?:
          state.pending[response.id] = nil
          return .some(continuation)
        case .arrived?, nil:
          return .none
        }
      }
      if let waiting {
        waiting?.resume(returning: response)
        return
      }
    }
    otherContinuation.yield(value)
  }

  private func closedByPeer() {
    let waiting = state.withLockedValue { state -> [CheckedContinuation<RPCResponse, any Error>] in
      state.closed = true
      state.writer = nil
      state.channel = nil
      defer { state.pending = state.pending.filter { if case .arrived = $0.value { return true } else { return false } } }
      return state.pending.values.compactMap { if case .waiting(let continuation) = $0 { return continuation } else { return nil } }
    }
    for continuation in waiting { continuation.resume(throwing: ArborClientError.connectionClosed) }
    notificationContinuation.finish()
    otherContinuation.finish()
  }
}

/// Resumes a continuation the first time only.
private final class ResumeOnce: Sendable {
  private let continuation: NIOLockedValueBox<CheckedContinuation<Void, Never>?>
  init(_ continuation: CheckedContinuation<Void, Never>) { self.continuation = NIOLockedValueBox(continuation) }
  func resume() {
    let taken = continuation.withLockedValue { value -> CheckedContinuation<Void, Never>? in
      defer { value = nil }
      return value
    }
    taken?.resume()
  }
}
