import AsyncHTTPClient
import Foundation
import HybridAIHTTP
import Logging
import MCP
import NIOCore

/// MCP's Streamable HTTP transport on AsyncHTTPClient (the Swift SDK's own is not built on Linux):
/// each message is a `POST` to the endpoint; the answer is one JSON message, a stream of
/// server-sent events carrying messages (progress, then the response), or `202` for a
/// notification. The `Mcp-Session-Id` the server assigns at initialization goes with every later
/// request, and a `DELETE` ends the session. Once initialized, a `GET` opens the server's own
/// stream (notifications such as `tools/list_changed`, requests that belong to no call), opened
/// again when it ends; a server that answers `405` has none.
actor StreamableHTTPTransport: Transport {
  nonisolated let logger: Logger
  /// Fires when the server can no longer be reached (a request failed at the transport level).
  nonisolated let exit = ServerExit()
  private let server: String
  private let endpoint: URL
  private let headers: [String: String]
  private let httpClient: HTTPClient
  private var sessionID: String?
  /// The answers being read, by request; each removes itself when done.
  private var readers: [UUID: Task<Void, Never>] = [:]
  /// The server's own stream (`GET`), once the session is initialized.
  private var serverStream: Task<Void, Never>?
  private let messages: AsyncThrowingStream<Data, any Swift.Error>
  private let continuation: AsyncThrowingStream<Data, any Swift.Error>.Continuation

  init(server: String, endpoint: URL, headers: [String: String], httpClient: HTTPClient = .shared, logger: Logger) {
    self.server = server
    self.endpoint = endpoint
    self.headers = headers
    self.httpClient = httpClient
    self.logger = logger
    (messages, continuation) = AsyncThrowingStream.makeStream(of: Data.self)
  }

  func connect() async throws {}

  func disconnect() async {
    if let sessionID {
      var request = HTTPClientRequest(url: endpoint.absoluteString)
      request.method = .DELETE
      for (name, value) in headers { request.headers.add(name: name, value: value) }
      request.headers.add(name: "Mcp-Session-Id", value: sessionID)
      _ = try? await httpClient.execute(request, timeout: .seconds(5), logger: logger)
      self.sessionID = nil
    }
    serverStream?.cancel()
    serverStream = nil
    readers.values.forEach { $0.cancel() }
    readers.removeAll()
    continuation.finish()
  }

  func send(_ data: Data) async throws {
    var request = HTTPClientRequest(url: endpoint.absoluteString)
    request.method = .POST
    for (name, value) in headers { request.headers.add(name: name, value: value) }
    request.headers.add(name: "Content-Type", value: "application/json")
    request.headers.add(name: "Accept", value: "application/json, text/event-stream")
    if let sessionID { request.headers.add(name: "Mcp-Session-Id", value: sessionID) }
    request.body = .bytes(ByteBuffer(bytes: data))
    let response: HTTPClientResponse
    do {
      response = try await httpClient.execute(request, timeout: .seconds(3600), logger: logger)
    } catch {
      let failure = MCPError.requestFailed(server: server, method: "POST \(endpoint.absoluteString)", reason: "\(error)")
      exit.fire(failure)
      throw failure
    }
    if let assigned = response.headers.first(name: "Mcp-Session-Id") { sessionID = assigned }
    let status = Int(response.status.code)
    guard (200..<300).contains(status) else {
      let body = (try? await response.body.collect(upTo: 8192)).map { String(buffer: $0) } ?? ""
      throw MCPError.requestFailed(server: server, method: "POST", reason: "HTTP \(status): \(body.prefix(500))")
    }
    let sent = Self.request(in: data)
    guard status != 202 else {   // a notification or a response: nothing comes back
      if serverStream == nil, sent.method == "notifications/initialized" { openServerStream() }
      return
    }
    let contentType = response.headers.first(name: "Content-Type")?.lowercased() ?? ""
    let (continuation, server, logger) = (self.continuation, self.server, self.logger)
    let id = UUID()
    readers[id] = Task {   // isolated to this actor: it starts after the assignment, and removes itself
      defer { self.readers[id] = nil }
      var last: Data?
      var failure = ""
      do {
        if contentType.hasPrefix("text/event-stream") {
          last = try await Self.readEvents(of: response, into: continuation)
        } else {
          let body = try await response.body.collect(upTo: MCPServerConnection.maximumMessageBytes)
          if body.readableBytes > 0 {
            last = Data(body.readableBytesView)
            continuation.yield(last!)
          }
        }
      } catch {
        logger.warning("an answer from the MCP server broke off", metadata: ["server": "\(server)", "error": "\(error)"])
        failure = ": \(error)"
      }
      // A request whose answer ended without its response fails now rather than at its time limit.
      if let requestID = sent.id, !Self.isResponse(last, to: requestID) {
        continuation.yield(Self.errorResponse(to: requestID, message: "the server closed the HTTP stream before the result\(failure)"))
      }
    }
  }

  func receive() -> AsyncThrowingStream<Data, any Swift.Error> { messages }

  /// Opens the server's own stream and reads it until the session ends; reopened a second after
  /// it ends or breaks, unless the server has none (`405`) or refuses it.
  private func openServerStream() {
    var request = HTTPClientRequest(url: endpoint.absoluteString)
    request.method = .GET
    for (name, value) in headers { request.headers.add(name: name, value: value) }
    request.headers.add(name: "Accept", value: "text/event-stream")
    if let sessionID { request.headers.add(name: "Mcp-Session-Id", value: sessionID) }
    let (httpClient, continuation, server, logger) = (self.httpClient, self.continuation, self.server, self.logger)
    serverStream = Task {
      while !Task.isCancelled {
        do {
          let response = try await httpClient.execute(request, timeout: .hours(24), logger: logger)
          let contentType = response.headers.first(name: "Content-Type")?.lowercased() ?? ""
          guard response.status == .ok, contentType.hasPrefix("text/event-stream") else {
            logger.debug("the MCP server offers no stream of its own", metadata: ["server": "\(server)", "status": "\(response.status.code)"])
            return
          }
          logger.debug("listening to the MCP server's own stream", metadata: ["server": "\(server)"])
          _ = try await Self.readEvents(of: response, into: continuation)
        } catch {
          guard !Task.isCancelled else { return }
          logger.info("the MCP server's own stream broke off; opening it again", metadata: ["server": "\(server)", "error": "\(error)"])
        }
        try? await Task.sleep(for: .seconds(1))
      }
    }
  }

  /// Hands on each message of a stream of server-sent events; returns the last.
  private static func readEvents(of response: HTTPClientResponse,
                                 into continuation: AsyncThrowingStream<Data, any Swift.Error>.Continuation) async throws -> Data? {
    var parser = ServerSentEventParser()
    var last: Data?
    for try await buffer in response.body {
      for event in parser.parse(buffer.readableBytesView) where !event.data.isEmpty {
        last = Data(event.data.utf8)
        continuation.yield(last!)
      }
    }
    if let event = parser.finish(), !event.data.isEmpty {
      last = Data(event.data.utf8)
      continuation.yield(last!)
    }
    return last
  }

  /// The parts of a JSON-RPC message the transport looks at.
  private struct Envelope: Decodable {
    var method: String?
    var id: ID?
  }

  /// The `method` of a JSON-RPC message, and its `id` when it is a request.
  private static func request(in message: Data) -> (method: String?, id: ID?) {
    guard let envelope = try? JSONDecoder().decode(Envelope.self, from: message) else { return (nil, nil) }
    return (envelope.method, envelope.method == nil ? nil : envelope.id)
  }

  /// Whether `message` is the response to the request `id`.
  private static func isResponse(_ message: Data?, to id: ID) -> Bool {
    guard let message, let envelope = try? JSONDecoder().decode(Envelope.self, from: message) else { return false }
    return envelope.method == nil && envelope.id == id
  }

  /// A JSON-RPC error response to the request `id`: an internal error, `message` its detail.
  private static func errorResponse(to id: ID, message: String) -> Data {
    struct Detail: Encodable { var detail: String }
    struct Failure: Encodable { var code = -32603, message = "Internal error", data: Detail }
    struct Response: Encodable { var jsonrpc = "2.0", id: ID, error: Failure }
    return (try? JSONEncoder().encode(Response(id: id, error: Failure(data: Detail(detail: message))))) ?? Data()
  }
}
