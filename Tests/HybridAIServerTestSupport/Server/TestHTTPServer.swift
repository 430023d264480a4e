import Foundation
import HybridAITestSupport
import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

/// A small HTTP/1.1 server on a real local socket (127.0.0.1, a free port) standing for the servers
/// that cannot exist here (Google's), for testing clients against canned answers: bodies with any status and headers, chunked streams
/// (server-sent events) with delays, streams cut short or left hanging, connections closed or
/// reset (RST) before any answer. It records every request it received and how many
/// connections were closed.
public final class TestHTTPServer: Sendable {
  /// What to answer to one request.
  public enum Reply: Sendable {
    /// A complete response with a `content-length`.
    case body(status: Int, headers: [(String, String)], body: Data)
    /// The answer to a `HEAD`: the head alone, its `content-length` as given.
    case head(status: Int, headers: [(String, String)])
    /// A chunked response written chunk by chunk, `delay` apart, ending as `end` says.
    case stream(status: Int, headers: [(String, String)], chunks: [Data], delay: Duration, end: StreamEnd)
    /// Close the connection (FIN) without answering.
    case close
    /// Reset the connection (RST, `SO_LINGER` 0) without answering.
    case reset

    /// JSON with a status.
    public static func json(_ text: String, status: Int = 200, headers: [(String, String)] = []) -> Reply {
      .body(status: status, headers: [("content-type", "application/json; charset=UTF-8")] + headers,
            body: Data(text.utf8))
    }

    /// A `text/event-stream` whose events carry `payloads` as data, `delay` apart.
    public static func sse(_ payloads: [String], delay: Duration = .zero, end: StreamEnd = .complete) -> Reply {
      .stream(status: 200, headers: [("content-type", "text/event-stream")],
              chunks: payloads.map { Data("data: \($0)\r\n\r\n".utf8) }, delay: delay, end: end)
    }

    /// A `text/event-stream` with the raw bytes of `text`, cut into chunks of `chunkSize` bytes.
    public static func rawSSE(_ text: Data, chunkSize: Int) -> Reply {
      var chunks: [Data] = []
      var index = text.startIndex
      while index < text.endIndex {
        let end = text.index(index, offsetBy: chunkSize, limitedBy: text.endIndex) ?? text.endIndex
        chunks.append(text[index..<end])
        index = end
      }
      return .stream(status: 200, headers: [("content-type", "text/event-stream")], chunks: chunks, delay: .zero,
                     end: .complete)
    }
  }

  /// How a streamed response ends.
  public enum StreamEnd: Sendable {
    /// With the terminating chunk.
    case complete
    /// The connection is closed without the terminating chunk.
    case cut
    /// The connection stays open (until the client goes away).
    case hang
  }

  /// A request as the server received it.
  public struct Request: Sendable {
    public var method: String
    public var uri: String
    public var headers: [(String, String)]
    public var body: Data

    public func header(_ name: String) -> String? {
      headers.first { $0.0.lowercased() == name.lowercased() }?.1
    }

    /// The path without the query.
    public var path: String { String(uri.split(separator: "?", maxSplits: 1).first ?? "") }
  }

  private struct State {
    var requests: [Request] = []
    var closedConnections = 0
  }

  public typealias Responder = @Sendable (_ request: Request, _ index: Int) -> Reply

  public let port: Int
  private let channel: any Channel
  private let state = Mutex(State())
  private let responder: Responder

  private init(channel: any Channel, responder: @escaping Responder) {
    self.channel = channel
    self.port = channel.localAddress?.port ?? 0
    self.responder = responder
  }

  /// Starts a server that answers request number `index` (0-based) with `responder`'s reply.
  public static func start(_ responder: @escaping Responder) async throws -> TestHTTPServer {
    let box = Mutex<TestHTTPServer?>(nil)
    let channel = try await bindLoopbackHTTP { channel in
      guard let server = box.withLock({ $0 }) else { throw ChannelError.ioOnClosedChannel }
      try channel.pipeline.syncOperations.addHandler(Handler(server: server))
    }
    let server = TestHTTPServer(channel: channel, responder: responder)
    box.withLock { $0 = server }
    return server
  }

  /// The event loops of the tests' hand-made servers: their own, not NIO's shared ones that
  /// HybridAI's HTTP clients and servers run on, so a stand-in's work (a responder that hashes or
  /// copies a model file) never holds up another test's connections in the same process.
  public static let eventLoopGroup = MultiThreadedEventLoopGroup(numberOfThreads: 2)

  /// Listens on a free port of 127.0.0.1 with NIO's HTTP/1.1 server pipeline on every connection,
  /// then `addHandlers` (on the connection's event loop) for what the test server does: the one
  /// bootstrap of the tests' hand-made HTTP servers.
  public static func bindLoopbackHTTP(
    addHandlers: @escaping @Sendable (any Channel) throws -> Void
  ) async throws -> any Channel {
    try await ServerBootstrap(group: eventLoopGroup)
      .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
      .childChannelInitializer { channel in
        channel.eventLoop.makeCompletedFuture {
          try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
          try addHandlers(channel)
        }
      }
      .bind(host: "127.0.0.1", port: 0).get()
  }

  /// Starts a server that answers every request with `reply`.
  public static func start(replying reply: Reply) async throws -> TestHTTPServer {
    try await start { _, _ in reply }
  }

  /// `http://127.0.0.1:<port>`.
  public var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

  /// The requests received so far.
  public var requests: [Request] { state.withLock { $0.requests } }

  /// How many connections have been closed so far.
  public var closedConnections: Int { state.withLock { $0.closedConnections } }

  /// Stops listening.
  public func stop() async {
    try? await channel.close()
  }

  /// Waits (up to `limit`) until `condition` holds; returns whether it did. The limit is generous:
  /// the whole suite shares CI's two cores, and the wait ends as soon as the condition holds.
  public func wait(upTo limit: Duration = .seconds(120), until condition: @Sendable (TestHTTPServer) -> Bool) async -> Bool {
    let clock = ContinuousClock()
    let deadline = clock.now + limit
    while clock.now < deadline {
      if condition(self) { return true }
      try? await Task.sleep(for: .milliseconds(10))
    }
    return condition(self)
  }

  fileprivate func received(_ request: Request) -> Reply {
    let index = state.withLock { state in
      state.requests.append(request)
      return state.requests.count - 1
    }
    return responder(request, index)
  }

  fileprivate func connectionClosed() {
    state.withLock { $0.closedConnections += 1 }
  }

  private final class Handler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let server: TestHTTPServer
    private var head: HTTPRequestHead?
    private var body = Data()

    init(server: TestHTTPServer) { self.server = server }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
      switch unwrapInboundIn(data) {
      case .head(let head):
        self.head = head
        body = Data()
      case .body(let buffer):
        body.append(contentsOf: buffer.readableBytesView)
      case .end:
        guard let head else { return }
        let request = Request(method: head.method.rawValue, uri: head.uri,
                              headers: head.headers.map { ($0.name, $0.value) }, body: body)
        respond(server.received(request), context: context)
      }
    }

    func channelInactive(context: ChannelHandlerContext) {
      server.connectionClosed()
      context.fireChannelInactive()
    }

    private func respond(_ reply: Reply, context: ChannelHandlerContext) {
      switch reply {
      case .body(let status, let headers, let body):
        var head = HTTPResponseHead(version: .http1_1, status: HTTPResponseStatus(statusCode: status))
        for (name, value) in headers { head.headers.add(name: name, value: value) }
        head.headers.replaceOrAdd(name: "content-length", value: String(body.count))
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: body)))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
      case .head(let status, let headers):
        var head = HTTPResponseHead(version: .http1_1, status: HTTPResponseStatus(statusCode: status))
        for (name, value) in headers { head.headers.add(name: name, value: value) }
        if !head.headers.contains(name: "content-length") { head.headers.add(name: "content-length", value: "0") }
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
      case .stream(let status, let headers, let chunks, let delay, let end):
        var head = HTTPResponseHead(version: .http1_1, status: HTTPResponseStatus(statusCode: status))
        for (name, value) in headers { head.headers.add(name: name, value: value) }
        head.headers.replaceOrAdd(name: "transfer-encoding", value: "chunked")
        context.writeAndFlush(wrapOutboundOut(.head(head)), promise: nil)
        writeChunks(chunks[...], delay: delay, end: end, context: context)
      case .close:
        context.close(promise: nil)
      case .reset:
        let channel = context.channel
        if let provider = channel as? any SocketOptionProvider {
          provider.setSoLinger(linger(l_onoff: 1, l_linger: 0)).whenComplete { _ in channel.close(promise: nil) }
        } else {
          context.close(promise: nil)
        }
      }
    }

    private func writeChunks(_ chunks: ArraySlice<Data>, delay: Duration, end: StreamEnd,
                             context: ChannelHandlerContext) {
      guard context.channel.isActive else { return }
      guard let chunk = chunks.first else {
        switch end {
        case .complete: context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        case .cut: context.close(promise: nil)
        case .hang: break
        }
        return
      }
      context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: chunk)))), promise: nil)
      let rest = chunks.dropFirst()
      if delay > .zero, !rest.isEmpty || end != .hang {
        let (seconds, attoseconds) = delay.components
        context.eventLoop.assumeIsolated().scheduleTask(
          in: .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)) {
          self.writeChunks(rest, delay: delay, end: end, context: context)
        }
      } else {
        writeChunks(rest, delay: delay, end: end, context: context)
      }
    }
  }
}

extension TestHTTPServer {
  /// The body of Google's error envelope, with an `ErrorInfo` detail when `reason` is given.
  public static func googleError(code: Int, status: String, message: String, reason: String? = nil) -> String {
    let details = reason.map {
      #", "details": [{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "\#($0)", "domain": "googleapis.com"}]"#
    } ?? ""
    return #"{"error": {"code": \#(code), "message": "\#(message)", "status": "\#(status)"\#(details)}}"#
  }
}
