import Dependencies
import Foundation
import IssueReporting
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Fetches a fact about a number.
///
/// The live value asks numbersapi.com over HTTP, with a timeout; tests and previews
/// override `fetch`.
public struct FactClient: Sendable {
  public var fetch: @Sendable (Int) async throws -> String

  public init(fetch: @escaping @Sendable (Int) async throws -> String) {
    self.fetch = fetch
  }
}

/// Why a fact could not be fetched.
public enum FactClientError: Error, Equatable {
  case badStatus(Int)
  case emptyBody
  case unimplemented
}

extension FactClient: DependencyKey {
  /// A real HTTP GET of `http://numbersapi.com/<n>`, failing after `timeout` seconds.
  public static func live(timeout: TimeInterval = 5) -> FactClient {
    FactClient { number in
      var request = URLRequest(url: URL(string: "http://numbersapi.com/\(number)")!)
      request.timeoutInterval = timeout
      let (data, response) = try await URLSession.shared.data(for: request)
      if let status = (response as? HTTPURLResponse)?.statusCode, status != 200 {
        throw FactClientError.badStatus(status)
      }
      let fact = String(decoding: data, as: UTF8.self)
      guard !fact.isEmpty else { throw FactClientError.emptyBody }
      return fact
    }
  }

  public static let liveValue = FactClient.live()

  /// Tests must say what a fetch returns.
  public static let testValue = FactClient { _ in
    reportIssue("FactClient.fetch has no test implementation: override it with withAnchor { $0.factClient = … }")
    throw FactClientError.unimplemented
  }
}

extension DependencyValues {
  /// The client that fetches number facts.
  public var factClient: FactClient {
    get { self[FactClient.self] }
    set { self[FactClient.self] = newValue }
  }
}
