import Foundation
import HybridAIServerTestSupport
import NIOCore
import NIOPosix
import Synchronization

/// A TCP proxy on 127.0.0.1 in front of a real server that cuts connections: when the bytes it
/// has passed back to clients (over all connections) reach the next cut offset, it closes both
/// sides of that connection. So a download through it is interrupted at chosen points of the
/// response stream, whatever the server behind it is.
final class CuttingProxy: Sendable {
  private struct State {
    var cuts: [Int] = []
    var bytesForwarded = 0
    var bytesToClients = 0
    var cutsMade = 0
  }

  let port: Int
  private let channel: any Channel
  private let state: Mutex<State>

  private init(channel: any Channel) {
    self.channel = channel
    self.port = channel.localAddress?.port ?? 0
    self.state = Mutex(State())
  }

  var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }
  /// Bytes written to client sockets (queued bytes dropped by a cut are not counted).
  var bytesToClients: Int { state.withLock { $0.bytesToClients } }
  var cutsMade: Int { state.withLock { $0.cutsMade } }

  /// Cuts at these offsets of the stream of bytes sent to clients from now on (sorted).
  func cut(atOffsetsFromNow offsets: [Int]) {
    state.withLock { state in state.cuts = offsets.map { $0 + state.bytesForwarded } }
  }

  /// Passes `count` more bytes to a client, or fewer when a cut falls inside; returns how many
  /// to pass and whether to cut after them. Cut offsets count bytes handed on; ``bytesToClients``
  /// counts those written to client sockets (see ``written(_:)``).
  fileprivate func pass(_ count: Int) -> (pass: Int, cut: Bool) {
    state.withLock { state in
      if let next = state.cuts.first, next < state.bytesForwarded + count {
        state.cuts.removeFirst()
        let allowed = max(0, next - state.bytesForwarded)
        state.bytesForwarded += allowed
        state.cutsMade += 1
        return (allowed, true)
      }
      state.bytesForwarded += count
      return (count, false)
    }
  }

  fileprivate func written(_ count: Int) { state.withLock { $0.bytesToClients += count } }

  static func start(to target: Int) async throws -> CuttingProxy {
    let box = Mutex<CuttingProxy?>(nil)
    let group = TestHTTPServer.eventLoopGroup
    let channel = try await ServerBootstrap(group: group)
      .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
      .childChannelOption(ChannelOptions.autoRead, value: false)
      .childChannelInitializer { inbound in
        ClientBootstrap(group: inbound.eventLoop)
          .connect(host: "127.0.0.1", port: target)
          .flatMap { outbound in
            guard let proxy = box.withLock({ $0 }) else { return inbound.eventLoop.makeFailedFuture(ChannelError.ioOnClosedChannel) }
            let toServer = Forwarder(partner: outbound, proxy: nil)
            let toClient = Forwarder(partner: inbound, proxy: proxy)
            return inbound.pipeline.addHandler(toServer).and(outbound.pipeline.addHandler(toClient)).map { _ in
              inbound.read()
            }
          }
      }
      .bind(host: "127.0.0.1", port: 0).get()
    let proxy = CuttingProxy(channel: channel)
    box.withLock { $0 = proxy }
    return proxy
  }

  func stop() async { try? await channel.close() }

  /// Forwards what one side reads to the other (`proxy` set on the server-to-client side, which
  /// is where cuts happen).
  private final class Forwarder: ChannelDuplexHandler, @unchecked Sendable {
    typealias InboundIn = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let partner: any Channel
    private let proxy: CuttingProxy?

    init(partner: any Channel, proxy: CuttingProxy?) {
      self.partner = partner
      self.proxy = proxy
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
      var buffer = unwrapInboundIn(data)
      guard let proxy else {
        partner.writeAndFlush(buffer, promise: nil)
        return
      }
      let (count, cut) = proxy.pass(buffer.readableBytes)
      if let slice = buffer.readSlice(length: count), slice.readableBytes > 0 {
        let written = partner.eventLoop.makePromise(of: Void.self)
        written.futureResult.whenSuccess { proxy.written(count) }
        partner.writeAndFlush(slice, promise: written)
      }
      if cut {
        let partner = self.partner
        partner.writeAndFlush(ByteBuffer(), promise: nil)
        partner.eventLoop.execute { partner.close(promise: nil) }
        context.close(promise: nil)
      }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
      context.read()
    }

    func channelActive(context: ChannelHandlerContext) {
      context.read()
      context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
      partner.close(promise: nil)
      context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
      context.close(promise: nil)
      partner.close(promise: nil)
    }
  }
}
