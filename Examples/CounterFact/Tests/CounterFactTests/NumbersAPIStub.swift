import ConcurrencyExtras
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Answers the live `FactClient`'s requests to numbersapi.com inside the test process, so
/// that its tests do not depend on the network: they pass and fail the same with or
/// without one. Requests to other hosts are left alone.
///
/// The answer depends on the number asked about (see ``answer(for:)``). Every request is
/// recorded, with the timeout it carried.
///
/// ```swift
/// NumbersAPIStub.install()
/// let app = AppModel().withAnchor { $0.factClient = .live(timeout: 1) }
/// ```
final class NumbersAPIStub: URLProtocol {
  /// What the stub does for one number.
  enum Answer {
    case fact(String)
    case status(Int)
    case emptyBody
    case timedOut
  }

  /// 1 has a fact, 2 is a server error, 3 an empty answer, and every other number times out
  /// (answered at once with the error a timeout gives).
  static func answer(for number: Int) -> Answer {
    switch number {
    case 1: .fact("1 is the number of moons of the Earth.")
    case 2: .status(503)
    case 3: .emptyBody
    default: .timedOut
    }
  }

  /// The requests seen: URL and timeout.
  static let requests = LockIsolated<[(url: String, timeout: TimeInterval)]>([])

  private static let registered: Bool = URLProtocol.registerClass(NumbersAPIStub.self)

  /// Registers the stub with the URL loading system, once per process.
  static func install() {
    precondition(registered, "the numbersapi.com stub could not be registered")
  }

  override class func canInit(with request: URLRequest) -> Bool {
    request.url?.host == "numbersapi.com"
  }

  override class func canonicalRequest(for request: URLRequest) -> URLRequest { request }

  override func startLoading() {
    guard let url = request.url, let client else { return }
    let timeout = request.timeoutInterval
    Self.requests.withValue { $0.append((url.absoluteString, timeout)) }
    func respond(status: Int, body: Data) {
      let response = HTTPURLResponse(url: url, statusCode: status, httpVersion: "HTTP/1.1", headerFields: ["Content-Type": "text/plain"])!
      client.urlProtocol(self, didReceive: response, cacheStoragePolicy: .notAllowed)
      client.urlProtocol(self, didLoad: body)
      client.urlProtocolDidFinishLoading(self)
    }
    switch Self.answer(for: Int(url.lastPathComponent) ?? -1) {
    case .fact(let fact): respond(status: 200, body: Data(fact.utf8))
    case .status(let status): respond(status: status, body: Data("unavailable".utf8))
    case .emptyBody: respond(status: 200, body: Data())
    case .timedOut: client.urlProtocol(self, didFailWithError: URLError(.timedOut))
    }
  }

  override func stopLoading() {}
}
