import AsyncHTTPClient
import Foundation
import HTTPTypes
import HummingbirdTesting
import HybridAITestSupport
import NIOCore
import NIOHTTP1

/// HTTP requests for tests, to a real socket or to an in-memory ``RunningServer`` alike (chosen
/// by the URL), with the parts of the answer tests look at.
public enum TestHTTP {
  /// A body that is not what a test expected.
  public struct UnexpectedBody: Error, CustomStringConvertible {
    public var description: String
  }

  /// An answer.
  public struct Reply: Sendable {
    public var status: Int
    public var headers: HTTPHeaders
    public var body: Data

    public init(status: Int, headers: HTTPHeaders, body: Data) {
      self.status = status
      self.headers = headers
      self.body = body
    }

    /// The body as UTF-8 text.
    public var text: String { String(decoding: body, as: UTF8.self) }
    /// The `Content-Type` header.
    public var contentType: String? { header("content-type") }
    /// The first value of header `name`.
    public func header(_ name: String) -> String? { headers.first(name: name) }

    /// The body as a JSON object.
    public var json: [String: Any] {
      get throws {
        guard let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any] else {
          throw UnexpectedBody(description: "not a JSON object: \(text)")
        }
        return object
      }
    }

    /// The `data:` payloads of a server-sent-events body, parsed as JSON objects.
    public var events: [[String: Any]] {
      get throws {
        try text.components(separatedBy: "\r\n\r\n").filter { !$0.isEmpty }.map { event in
          guard event.hasPrefix("data: "),
                let object = try? JSONSerialization.jsonObject(with: Data(event.dropFirst(6).utf8)) as? [String: Any] else {
            throw UnexpectedBody(description: "not an SSE event with a JSON object: \(event)")
          }
          return object
        }
      }
    }

    /// `error.status` of Google's error envelope.
    public var errorStatus: String? { (try? json["error"] as? [String: Any])?["status"] as? String }
    /// `error.message` of Google's error envelope.
    public var errorMessage: String? { (try? json["error"] as? [String: Any])?["message"] as? String }
  }

  /// Sends a request; `json` is serialized (with `Content-Type: application/json`), `body` sent as
  /// is (with its Content-Length), `stream` sent chunked (no Content-Length; in memory, joined).
  public static func send(_ method: HTTPMethod, _ url: URL, headers: [String: String] = [:], json: Any? = nil,
                          body: Data? = nil, stream: [Data]? = nil) async throws -> Reply {
    var headers = headers
    var payload = body
    if let json {
      headers["content-type"] = "application/json"
      payload = try JSONSerialization.data(withJSONObject: json, options: [.fragmentsAllowed])
    }
    if let client = InMemoryServers.client(for: url) {
      return try await sendInMemory(client, method, url, headers: headers, body: payload ?? stream.map { $0.reduce(Data(), +) })
    }
    var request = HTTPClientRequest(url: url.absoluteString)
    request.method = method
    for (name, value) in headers { request.headers.replaceOrAdd(name: name, value: value) }
    if let payload {
      request.body = .bytes(ByteBuffer(bytes: payload))
    } else if let stream {
      let chunks = stream.map { ByteBuffer(bytes: $0) }
      request.body = .stream(AsyncStream { continuation in
        for chunk in chunks { continuation.yield(chunk) }
        continuation.finish()
      }, length: .unknown)
    }
    let response = try await TestHTTPClient.shared.execute(request, timeout: .seconds(600))
    let collected = try await response.body.collect(upTo: 64 << 20)
    return Reply(status: Int(response.status.code), headers: response.headers, body: Data(buffer: collected))
  }

  /// The value of metric `name` in the Prometheus text of `base`'s `/metrics`, summed over its
  /// labelled series; `0` when it is absent.
  public static func metric(_ name: String, at base: URL) async throws -> Double {
    let text = try await send(.GET, URL(string: base.absoluteString + "/metrics")!).text
    return text.split(separator: "\n")
      .filter { $0.hasPrefix(name + " ") || $0.hasPrefix(name + "{") }
      .compactMap { Double($0.split(separator: " ").last ?? "") }.reduce(0, +)
  }

  private static func sendInMemory(_ client: any TestClientProtocol, _ method: HTTPMethod, _ url: URL,
                                   headers: [String: String], body: Data?) async throws -> Reply {
    var fields = HTTPFields()
    for (name, value) in headers {
      if let field = HTTPField.Name(name) { fields[field] = value }
    }
    var target = url.path.isEmpty ? "/" : url.path(percentEncoded: true)
    if let query = url.query(percentEncoded: true) { target += "?" + query }
    let response = try await client.executeRequest(
      uri: target, method: HTTPRequest.Method(rawValue: method.rawValue) ?? .get, headers: fields,
      body: body.map { ByteBuffer(bytes: $0) })
    var answerHeaders = HTTPHeaders()
    for field in response.headers { answerHeaders.add(name: field.name.canonicalName, value: field.value) }
    return Reply(status: Int(response.status.code), headers: answerHeaders, body: Data(buffer: response.body))
  }
}
