import ArborJSON
import ArborRPC

/// What calls the daemon's methods: ``ArborClient`` (each call on a connection of its own)
/// and ``ArborConnection``. Each gives the call by name; the calls by ``ArborMethod`` and
/// the typed calls (``ArborMethodDefinition``) come from it.
///
/// ```swift
/// func revision(of daemon: some ArborCaller) async throws(ArborClientError) -> UInt64 {
///   try await daemon.call(DaemonStatus.self).revision
/// }
/// ```
public protocol ArborCaller: Sendable {
  /// Calls a method and returns its result; the daemon's error is thrown as
  /// ``ArborClientError/daemon(_:)``.
  ///
  /// ```swift
  /// let state = try await caller.call("state.get", ["path": "/counters"])
  /// ```
  func call(_ method: String, _ params: JSONValue?) async throws(ArborClientError) -> JSONValue
}

extension ArborCaller {
  /// Calls one of the daemon's methods by name (``ArborMethod``) and returns its result.
  ///
  /// ```swift
  /// let status = try await connection.call(.status)
  /// ```
  @discardableResult
  public func call(_ method: ArborMethod, _ params: JSONValue? = nil) async throws(ArborClientError) -> JSONValue {
    try await call(method.rawValue, params)
  }

  /// Calls one of the daemon's methods with its typed parameters (``ArborMethodDefinition``)
  /// and returns its typed result.
  ///
  /// ```swift
  /// let counters = try await connection.call(StateGet.self, .init(path: "/counters"))
  /// print(counters.revision, counters.value)
  /// ```
  @discardableResult
  public func call<Definition: ArborMethodDefinition>(
    _ definition: Definition.Type, _ params: Definition.Params
  ) async throws(ArborClientError) -> Definition.Result {
    let result = try await call(Definition.method.rawValue, try ArborConnection.encode(params, of: Definition.method))
    return try ArborConnection.decode(Definition.Result.self, from: result, of: Definition.method)
  }

  /// Calls one of the daemon's methods that takes no parameters and returns its typed result.
  ///
  /// ```swift
  /// let status = try await client.call(DaemonStatus.self)
  /// print(status.name, status.revision)
  /// ```
  @discardableResult
  public func call<Definition: ArborMethodDefinition>(_ definition: Definition.Type) async throws(ArborClientError) -> Definition.Result
  where Definition.Params == NoParams {
    try await call(definition, NoParams())
  }
}
