import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Closes a connection whose request was refused while its body was still arriving — a `413` for
/// a body declared too large, a `401` before an upload — instead of reading and discarding the
/// rest, which may be gigabytes. The refusal says `Connection: close`; once it is written, the
/// server stops sending, reads (and drops) what is already on its way for at most
/// ``lingerTime`` so that the client sees the answer rather than a reset, then closes.
///
/// Placed after HTTP/1 decoding, so it sees requests and responses as HTTP parts.
final class UnreadBodyConnectionCloser: ChannelDuplexHandler, RemovableChannelHandler {
  typealias InboundIn = HTTPRequestPart
  typealias InboundOut = HTTPRequestPart
  typealias OutboundIn = HTTPResponsePart
  typealias OutboundOut = HTTPResponsePart

  /// How long a refused request's remaining bytes are read and dropped before the connection closes.
  static let lingerTime = TimeAmount.seconds(2)

  /// A request head has been read and its end has not.
  private var requestBodyPending = false
  /// The response being written refuses a request whose body is still arriving.
  private var closesAfterResponse = false
  /// The refusal is written: inbound bytes are dropped until the connection closes.
  private var lingering = false

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    if lingering { return }
    switch unwrapInboundIn(data) {
    case .head: requestBodyPending = true
    case .body: break
    case .end: requestBodyPending = false
    }
    context.fireChannelRead(data)
  }

  func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
    switch unwrapOutboundIn(data) {
    case .head(var response) where response.status.code >= 400 && requestBodyPending:
      closesAfterResponse = true
      response.headerFields[.connection] = "close"
      context.write(wrapOutboundOut(.head(response)), promise: promise)
    case .end where closesAfterResponse:
      closesAfterResponse = false
      lingering = true
      let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
      context.writeAndFlush(data).whenComplete { _ in
        let context = loopBound.value
        context.close(mode: .output, promise: nil)
        context.eventLoop.scheduleTask(in: Self.lingerTime) { loopBound.value.close(promise: nil) }
      }
      promise?.succeed()
    default:
      context.write(data, promise: promise)
    }
  }
}
