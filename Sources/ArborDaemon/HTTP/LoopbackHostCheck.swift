#if HTTP
import Hummingbird
import NIOCore

/// On a loopback listener, a request must name a loopback host: a page of another site
/// that a DNS name was pointed back at this machine (DNS rebinding) is refused.
struct LoopbackHostCheck<Context: RequestContext>: RouterMiddleware {
  func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
    guard LoopbackHost.matches(request.head) else {
      return Response(
        status: .misdirectedRequest, headers: [.contentType: "text/plain; charset=utf-8"],
        body: .init(byteBuffer: ByteBuffer(string: "this listener answers loopback names only (localhost, 127.0.0.1, [::1])\n")))
    }
    return try await next(request, context)
  }
}

extension LoopbackHostCheck where Context == BasicRequestContext {
  init() {}
}
#endif
