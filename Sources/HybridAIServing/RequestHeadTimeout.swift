import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Closes a connection whose request head (request line and headers) is not complete
/// ``timeout`` after its first byte arrived — a client sending its headers a byte at a time
/// (slowloris), which the idle timeout never catches since every byte counts as activity. The
/// time of a request's body and of an idle keep-alive connection are not counted here.
///
/// It is two handlers: ``RequestHeadTimeout`` itself, placed after HTTP/1 decoding, sees when a
/// head is complete and when a response ends, and puts a ``ByteWatcher`` in front of the decoder,
/// where the raw bytes arrive, which starts the clock on the first byte of the next head.
final class RequestHeadTimeout: ChannelDuplexHandler, RemovableChannelHandler {
  typealias InboundIn = HTTPRequestPart
  typealias InboundOut = HTTPRequestPart
  typealias OutboundIn = HTTPResponsePart
  typealias OutboundOut = HTTPResponsePart

  /// How long a request head may take from its first byte.
  let timeout: TimeAmount

  init(timeout: TimeAmount) {
    self.timeout = timeout
  }

  func handlerAdded(context: ChannelHandlerContext) {
    try? context.pipeline.syncOperations.addHandler(ByteWatcher(timeout: timeout), position: .first)
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    if case .head = unwrapInboundIn(data) { context.triggerUserOutboundEvent(Event.headReceived, promise: nil) }
    context.fireChannelRead(data)
  }

  func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
    if case .end = unwrapOutboundIn(data) { context.triggerUserOutboundEvent(Event.responseEnded, promise: nil) }
    context.write(data, promise: promise)
  }

  /// What the decoded side tells the raw side.
  enum Event {
    case headReceived
    case responseEnded
  }

  /// The raw side: starts the clock when bytes arrive while no request is open, stops it when
  /// their head is complete.
  final class ByteWatcher: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let timeout: TimeAmount
    /// Requests whose head has come and whose response has not ended.
    private var openRequests = 0
    private var deadline: Scheduled<Void>?

    init(timeout: TimeAmount) {
      self.timeout = timeout
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
      if openRequests == 0, deadline == nil {
        let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
        deadline = context.eventLoop.scheduleTask(in: timeout) { loopBound.value.close(promise: nil) }
      }
      context.fireChannelRead(data)
    }

    func triggerUserOutboundEvent(context: ChannelHandlerContext, event: Any, promise: EventLoopPromise<Void>?) {
      guard let event = event as? Event else {
        context.triggerUserOutboundEvent(event, promise: promise)
        return
      }
      switch event {
      case .headReceived:
        openRequests += 1
        deadline?.cancel()
        deadline = nil
      case .responseEnded:
        openRequests = max(0, openRequests - 1)
      }
      promise?.succeed()
    }

    func channelInactive(context: ChannelHandlerContext) {
      deadline?.cancel()
      deadline = nil
      context.fireChannelInactive()
    }
  }
}
