import Foundation
import HybridAIServerTestSupport
import HybridAITestSupport
import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

/// A raw HTTP/1.1 server on a real 127.0.0.1 socket that speaks the registry's client API
/// (`GET /v1/models/{name}:download`, `GET /v1/blobs/{sha256}?expires=…&signature=…`, as
/// `docs/model-delivery.md` says) and misbehaves on request: it cuts blob answers at chosen
/// offsets (FIN or RST), ignores `Range`, answers `416`, flips a byte in flight, hands out
/// already-expired URLs, fails information requests, and counts everything it does.
final class FaultyRegistryServer: Sendable {
  /// How a cut connection ends.
  enum CutStyle: Sendable {
    case close, reset
    /// FIN and RST in turn.
    case alternate
  }

  /// What to do wrong; change with ``configure(_:)``.
  struct Faults: Sendable {
    /// Absolute file offsets at which blob answers are cut (what was queued before the cut and not
    /// yet written to the socket is dropped, so the client may get less), in order; each is used once, by the
    /// first answer that reaches it.
    var cutOffsets: [Int] = []
    var cutStyle: CutStyle = .alternate
    /// How long to wait after the last byte before a cut, so that the client has read what was
    /// sent (the HTTP client drops body parts it buffered when the connection fails).
    var cutDelay: Duration = .milliseconds(10)
    /// Answer every blob request with the whole file (`200`), whatever its `Range`.
    var ignoreRange = false
    /// Answer this many ranged blob requests with `416`.
    var rangeNotSatisfiable = 0
    /// Flip the byte at this offset in every answer that carries it.
    var corruptOffset: Int?
    /// The next this-many download URLs handed out are already expired.
    var expiredURLs = 0
    /// Statuses to answer the next information requests with (a Google error envelope).
    var infoFailures: [Int] = []
    /// Close this many blob requests' connections without answering.
    var blobConnectionDrops = 0
    /// Close the connections of every blob request after this many (counting all blob requests).
    var dropBlobRequestsAfter: Int?
    /// Stop sending every blob answer that would go past this file offset there, and hold its
    /// connection open (until the client closes it), so a download is surely under way.
    var stallOffset: Int?
    /// Like ``stallOffset``, for the first answer that reaches it only (a network that went quiet once).
    var stallOnceOffset: Int?
    /// Answer this many information requests with nothing at all, holding their connections open.
    var silentInfoRequests = 0
    /// Pause between body chunks.
    var chunkDelay: Duration = .zero
    var chunkSize = 64 << 10
    /// The size announced in the model information instead of the real one.
    var announcedSize: Int?
  }

  /// What the server did.
  struct Stats: Sendable {
    var infoRequests = 0
    var notModified = 0
    var blobRequests = 0
    var rangedBlobRequests = 0
    /// Blob body bytes written to sockets.
    var blobBytesSent = 0
    var rejectedBlobRequests = 0
    var cuts = 0
    var connectionsClosed = 0
  }

  /// A request as received.
  struct Request: Sendable {
    var method: String
    var uri: String
    var headers: [(String, String)]

    func header(_ name: String) -> String? { headers.first { $0.0.lowercased() == name.lowercased() }?.1 }
    var path: String { String(uri.split(separator: "?", maxSplits: 1).first ?? "") }
  }

  private struct Model {
    var version: Int
    var data: Data
    var sha256: String
  }

  private struct State {
    var connections: [ObjectIdentifier: any Channel] = [:]
    var faults = Faults()
    var stats = Stats()
    var requests: [Request] = []
    var models: [String: Model] = [:]
    var blobs: [String: Data] = [:]
    var cutCount = 0
  }

  let port: Int
  private let channel: any Channel
  private let state = Mutex(State())

  private init(channel: any Channel) {
    self.channel = channel
    self.port = channel.localAddress?.port ?? 0
  }

  static func start() async throws -> FaultyRegistryServer {
    let box = Mutex<FaultyRegistryServer?>(nil)
    let channel = try await TestHTTPServer.bindLoopbackHTTP { channel in
      guard let server = box.withLock({ $0 }) else { throw ChannelError.ioOnClosedChannel }
      try channel.pipeline.syncOperations.addHandler(Handler(server: server))
      server.opened(channel)
    }
    let server = FaultyRegistryServer(channel: channel)
    box.withLock { $0 = server }
    return server
  }

  var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

  /// Stops listening and closes every open connection (so no keep-alive connection survives).
  func stop() async {
    try? await channel.close()
    let open = state.withLock { Array($0.connections.values) }
    for connection in open { try? await connection.close() }
  }

  fileprivate func opened(_ channel: any Channel) {
    state.withLock { $0.connections[ObjectIdentifier(channel)] = channel }
  }

  /// Serves `data` as the next version of `name`; returns the version and its SHA-256.
  @discardableResult
  func publish(_ name: String, data: Data) async -> (version: String, sha256: String) {
    let sha = await TestSHA256.hex(data)
    return state.withLock { state in
      let version = (state.models[name]?.version ?? 0) + 1
      state.models[name] = Model(version: version, data: data, sha256: sha)
      state.blobs[sha] = data
      return (String(version), sha)
    }
  }

  /// Serves an already published blob under a new version number.
  func republish(_ name: String) -> String {
    state.withLock { state in
      state.models[name]!.version += 1
      return String(state.models[name]!.version)
    }
  }

  func withdraw(_ name: String) { state.withLock { _ = $0.models.removeValue(forKey: name) } }

  func configure(_ change: (inout Faults) -> Void) { state.withLock { change(&$0.faults) } }

  var stats: Stats { state.withLock { $0.stats } }
  var requests: [Request] { state.withLock { $0.requests } }
  var blobRequestList: [Request] { requests.filter { $0.path.hasPrefix("/v1/blobs/") } }

  /// Waits (up to `limit`) until `condition` holds; returns whether it did. The limit is generous:
  /// the whole suite shares CI's two cores, and the wait ends as soon as the condition holds.
  func wait(upTo limit: Duration = .seconds(120), until condition: @Sendable (Stats) -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + limit
    while ContinuousClock.now < deadline {
      if condition(stats) { return true }
      try? await Task.sleep(for: .milliseconds(5))
    }
    return condition(stats)
  }

  // MARK: - Answers

  fileprivate enum Reply {
    case json(status: Int, headers: [(String, String)], body: String)
    case empty(status: Int, headers: [(String, String)])
    case blob(status: Int, headers: [(String, String)], data: Data, start: Int, end: Int)
    case drop
    /// Nothing: the connection stays open until the client closes it.
    case silence
  }

  fileprivate func received(_ request: Request) -> Reply {
    state.withLock { state in
      state.requests.append(request)
      if request.path.hasPrefix("/v1/models/"), request.path.hasSuffix(":download") {
        return info(request, &state)
      }
      if request.path.hasPrefix("/v1/blobs/") { return blob(request, &state) }
      return Self.error(404, "NOT_FOUND", "no route for \(request.path)")
    }
  }

  private func info(_ request: Request, _ state: inout State) -> Reply {
    state.stats.infoRequests += 1
    if state.faults.silentInfoRequests > 0 {
      state.faults.silentInfoRequests -= 1
      return .silence
    }
    if !state.faults.infoFailures.isEmpty {
      let status = state.faults.infoFailures.removeFirst()
      return Self.error(status, status == 503 ? "UNAVAILABLE" : "INTERNAL", "injected failure")
    }
    let name = String(request.path.dropFirst("/v1/models/".count).dropLast(":download".count))
    guard let model = state.models[name] else { return Self.error(404, "NOT_FOUND", "model \(name) not found") }
    let etag = "\"\(model.sha256)\""
    if request.header("If-None-Match") == etag {
      state.stats.notModified += 1
      return .empty(status: 304, headers: [("ETag", etag)])
    }
    let expired = state.faults.expiredURLs > 0
    if expired { state.faults.expiredURLs -= 1 }
    let expires = expired ? 1 : 4_102_444_800
    let size = state.faults.announcedSize ?? model.data.count
    let body = """
      {"name": "\(name)", "version": "\(model.version)", "sizeBytes": \(size), "sha256": "\(model.sha256)",
       "format": "other", "downloadUri": "http://127.0.0.1:\(port)/v1/blobs/\(model.sha256)?expires=\(expires)&signature=00ff",
       "expireTime": "2100-01-01T00:00:00Z"}
      """
    return .json(status: 200, headers: [("ETag", etag)], body: body)
  }

  private func blob(_ request: Request, _ state: inout State) -> Reply {
    state.stats.blobRequests += 1
    let sha = String(request.path.dropFirst("/v1/blobs/".count))
    if state.faults.blobConnectionDrops > 0 {
      state.faults.blobConnectionDrops -= 1
      return .drop
    }
    if let limit = state.faults.dropBlobRequestsAfter, state.stats.blobRequests > limit { return .drop }
    let query = request.uri.split(separator: "?", maxSplits: 1).dropFirst().first.map(String.init) ?? ""
    let expires = query.split(separator: "&").first { $0.hasPrefix("expires=") }.flatMap { Int($0.dropFirst(8)) } ?? 0
    guard expires > Int(Date().timeIntervalSince1970) else {
      state.stats.rejectedBlobRequests += 1
      return Self.error(403, "PERMISSION_DENIED", "the download URL has expired")
    }
    guard let data = state.blobs[sha] else { return Self.error(404, "NOT_FOUND", "no blob \(sha)") }
    let etag = "\"\(sha)\""
    var headers = [("ETag", etag), ("Accept-Ranges", "bytes"), ("Content-Type", "application/octet-stream")]
    guard let range = request.header("Range"), !state.faults.ignoreRange,
          request.header("If-Range").map({ $0 == etag }) ?? true else {
      return .blob(status: 200, headers: headers, data: data, start: 0, end: data.count)
    }
    state.stats.rangedBlobRequests += 1
    guard range.hasPrefix("bytes="), let dash = range.firstIndex(of: "-"),
          let first = Int(range[range.index(range.startIndex, offsetBy: 6)..<dash]) else {
      return Self.error(400, "INVALID_ARGUMENT", "unsupported range \(range)")
    }
    let last = Int(range[range.index(after: dash)...]) ?? data.count - 1
    if state.faults.rangeNotSatisfiable > 0 || first >= data.count {
      state.faults.rangeNotSatisfiable = max(0, state.faults.rangeNotSatisfiable - 1)
      return .empty(status: 416, headers: [("Content-Range", "bytes */\(data.count)")])
    }
    let end = min(last + 1, data.count)
    headers.append(("Content-Range", "bytes \(first)-\(end - 1)/\(data.count)"))
    return .blob(status: 206, headers: headers, data: data, start: first, end: end)
  }

  private static func error(_ status: Int, _ code: String, _ message: String) -> Reply {
    .json(status: status, headers: [],
          body: #"{"error": {"code": \#(status), "message": "\#(message)", "status": "\#(code)"}}"#)
  }

  /// The cut (if any) inside `start..<end`, consumed; and how to cut.
  fileprivate func cut(in start: Int, _ end: Int) -> (offset: Int, reset: Bool)? {
    state.withLock { state in
      state.faults.cutOffsets.removeAll { $0 <= start }
      guard let offset = state.faults.cutOffsets.first, offset < end else { return nil }
      state.faults.cutOffsets.removeFirst()
      state.stats.cuts += 1
      state.cutCount += 1
      let reset = switch state.faults.cutStyle {
      case .close: false
      case .reset: true
      case .alternate: state.cutCount % 2 == 0
      }
      return (offset, reset)
    }
  }

  /// The offset to corrupt inside `start..<end`.
  fileprivate func stall(in start: Int, _ end: Int) -> Int? {
    state.withLock { state in
      if let offset = state.faults.stallOnceOffset, offset > start, offset < end {
        state.faults.stallOnceOffset = nil
        return offset
      }
      guard let offset = state.faults.stallOffset, offset > start, offset < end else { return nil }
      return offset
    }
  }

  fileprivate func corruption(in start: Int, _ end: Int) -> Int? {
    state.withLock { state in
      guard let offset = state.faults.corruptOffset, offset >= start, offset < end else { return nil }
      return offset
    }
  }

  fileprivate var pacing: (chunkSize: Int, delay: Duration, cutDelay: Duration) {
    state.withLock { ($0.faults.chunkSize, $0.faults.chunkDelay, $0.faults.cutDelay) }
  }

  fileprivate func sent(_ bytes: Int) { state.withLock { $0.stats.blobBytesSent += bytes } }
  fileprivate func connectionClosed(_ channel: any Channel) {
    state.withLock { state in
      state.stats.connectionsClosed += 1
      state.connections[ObjectIdentifier(channel)] = nil
    }
  }

  // MARK: - Channel handler

  private final class Handler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let server: FaultyRegistryServer
    private var head: HTTPRequestHead?

    init(server: FaultyRegistryServer) { self.server = server }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
      switch unwrapInboundIn(data) {
      case .head(let head): self.head = head
      case .body: break
      case .end:
        guard let head else { return }
        self.head = nil
        let request = Request(method: head.method.rawValue, uri: head.uri, headers: head.headers.map { ($0.name, $0.value) })
        respond(server.received(request), to: head, context: context)
      }
    }

    func channelInactive(context: ChannelHandlerContext) {
      server.connectionClosed(context.channel)
      context.fireChannelInactive()
    }

    private func respond(_ reply: Reply, to request: HTTPRequestHead, context: ChannelHandlerContext) {
      switch reply {
      case .json(let status, let headers, let body):
        writeHead(status, headers + [("Content-Type", "application/json; charset=UTF-8")], length: body.utf8.count,
                  context: context)
        context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: body)))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
      case .empty(let status, let headers):
        writeHead(status, headers, length: 0, context: context)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
      case .drop:
        context.close(promise: nil)
      case .silence:
        break
      case .blob(let status, let headers, let data, let start, let end):
        writeHead(status, headers, length: end - start, context: context)
        if request.method == .HEAD {
          context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
          return
        }
        context.flush()
        if let stall = server.stall(in: start, end) {
          let corruptAt = server.corruption(in: start, stall)
          writeBody(data, from: start, to: stall, cut: nil, holdsOpen: true, corruptAt: corruptAt, context: context)
          return
        }
        let cut = server.cut(in: start, end)
        let corruptAt = server.corruption(in: start, cut?.offset ?? end)
        writeBody(data, from: start, to: cut?.offset ?? end, cut: cut, corruptAt: corruptAt, context: context)
      }
    }

    static func timeAmount(_ duration: Duration) -> TimeAmount {
      let (seconds, attoseconds) = duration.components
      return .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }

    private func writeHead(_ status: Int, _ headers: [(String, String)], length: Int, context: ChannelHandlerContext) {
      var head = HTTPResponseHead(version: .http1_1, status: HTTPResponseStatus(statusCode: status))
      for (name, value) in headers { head.headers.add(name: name, value: value) }
      head.headers.replaceOrAdd(name: "Content-Length", value: String(length))
      context.write(wrapOutboundOut(.head(head)), promise: nil)
    }

    private func writeBody(_ data: Data, from position: Int, to stop: Int, cut: (offset: Int, reset: Bool)?,
                           holdsOpen: Bool = false, corruptAt: Int?, context: ChannelHandlerContext) {
      guard context.channel.isActive else { return }
      let (chunkSize, delay, cutDelay) = server.pacing
      guard position < stop else {
        if holdsOpen { return }
        if let cut {
          let channel = context.channel
          context.eventLoop.scheduleTask(in: Self.timeAmount(cutDelay)) {
            if cut.reset, let provider = channel as? any SocketOptionProvider {
              provider.setSoLinger(linger(l_onoff: 1, l_linger: 0)).whenComplete { _ in channel.close(promise: nil) }
            } else {
              channel.close(promise: nil)
            }
          }
        } else {
          context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        }
        return
      }
      let next = min(position + chunkSize, stop)
      var bytes = [UInt8](data[(data.startIndex + position)..<(data.startIndex + next)])
      if let corruptAt, corruptAt >= position, corruptAt < next { bytes[corruptAt - position] ^= 0xFF }
      // Counted once written to the socket: bytes still queued when the connection is cut are dropped.
      let written = context.eventLoop.makePromise(of: Void.self)
      let server = self.server
      let count = bytes.count
      written.futureResult.whenSuccess { server.sent(count) }
      context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: bytes)))), promise: written)
      if delay > .zero {
        context.eventLoop.assumeIsolated().scheduleTask(in: Self.timeAmount(delay)) {
          self.writeBody(data, from: next, to: stop, cut: cut, holdsOpen: holdsOpen, corruptAt: corruptAt, context: context)
        }
      } else {
        writeBody(data, from: next, to: stop, cut: cut, holdsOpen: holdsOpen, corruptAt: corruptAt, context: context)
      }
    }
  }
}
