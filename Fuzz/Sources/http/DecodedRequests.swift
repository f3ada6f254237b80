import HTTPTypes
import NIOCore
import NIOEmbedded
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1

/// The bytes of one connection through NIO's HTTP/1 decoder (llhttp, with the listener's
/// limits) and the conversion to the HTTP types Hummingbird uses: the request heads as
/// NIO decoded them and as Hummingbird's handlers get them. Shared by the `http` and
/// `upgrade` targets (a link in the latter).
///
/// ```swift
/// let (heads, requests) = decodedRequests(Array("GET / HTTP/1.1\r\nHost: a\r\n\r\n".utf8))
/// ```
func decodedRequests(_ bytes: [UInt8]) -> (heads: [HTTPRequestHead], requests: [HTTPRequest]) {
  let heads = Heads(), requests = Requests()
  let channel = EmbeddedChannel()
  do {
    var limits = NIOHTTPDecoderLimitConfiguration()
    limits.maxHeaderFieldSize = 16 << 10
    limits.maxHeaderListSize = 64 << 10
    limits.maxHeaderFieldCount = 100
    try channel.pipeline.syncOperations.configureHTTPServerPipeline(
      withPipeliningAssistance: false, withErrorHandling: false, withOutboundHeaderValidation: false,
      withEncoderConfiguration: .init(), withDecoderLimitConfiguration: limits)
    try channel.pipeline.syncOperations.addHandler(heads, position: .last)
    try channel.pipeline.syncOperations.addHandler(HTTP1ToHTTPServerCodec(secure: false), position: .last)
    try channel.pipeline.syncOperations.addHandler(requests, position: .last)
  } catch {
    fatalError("the pipeline cannot be set up: \(error)")
  }
  _ = try? channel.writeInbound(channel.allocator.buffer(bytes: bytes))
  _ = try? channel.finish()
  channel.embeddedEventLoop.run()  // the teardown a close queued
  return (heads.heads, requests.heads)
}

/// The heads as NIO's decoder hands them on.
private final class Heads: ChannelInboundHandler {
  typealias InboundIn = HTTPServerRequestPart
  var heads: [HTTPRequestHead] = []

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    if case .head(let head) = unwrapInboundIn(data) { heads.append(head) }
    context.fireChannelRead(data)
  }
}

/// The requests as Hummingbird's handlers get them.
private final class Requests: ChannelInboundHandler {
  typealias InboundIn = HTTPRequestPart
  var heads: [HTTPRequest] = []

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    if case .head(let head) = unwrapInboundIn(data) { heads.append(head) }
  }

  func errorCaught(context: ChannelHandlerContext, error: any Error) {}
}
