import AsyncHTTPClient
import Foundation
import HybridAITestSupport
import NIOCore
import NIOHTTP1
import Testing

/// Raw HTTP against a test server, for what a Gemini client library would hide (status codes,
/// headers, the SSE framing, error envelopes).
enum HTTP {
  struct Reply {
    var status: Int
    var contentType: String?
    var body: Data

    var json: [String: Any] {
      get throws { try #require(JSONSerialization.jsonObject(with: body) as? [String: Any], "not a JSON object: \(text)") }
    }
    var text: String { String(decoding: body, as: UTF8.self) }

    /// The `data:` payloads of a server-sent-events body, parsed as JSON objects.
    var events: [[String: Any]] {
      get throws {
        try text.components(separatedBy: "\r\n\r\n").filter { !$0.isEmpty }.map { event in
          let payload = try #require(event.hasPrefix("data: ") ? String(event.dropFirst(6)) : nil, "not an SSE event: \(event)")
          return try #require(JSONSerialization.jsonObject(with: Data(payload.utf8)) as? [String: Any])
        }
      }
    }

    /// `error.status` of Google's error envelope.
    var errorStatus: String? { (try? json["error"] as? [String: Any])?["status"] as? String }
  }

  static func send(_ method: HTTPMethod, _ url: URL, json body: Any? = nil, rawBody: Data? = nil,
                   headers: [String: String] = [:]) async throws -> Reply {
    var request = HTTPClientRequest(url: url.absoluteString)
    request.method = method
    for (name, value) in headers { request.headers.add(name: name, value: value) }
    if let body {
      request.headers.add(name: "content-type", value: "application/json")
      request.body = .bytes(ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: body)))
    } else if let rawBody {
      request.body = .bytes(ByteBuffer(bytes: rawBody))
    }
    let response = try await TestHTTPClient.shared.execute(request, timeout: .seconds(600))
    let collected = try await response.body.collect(upTo: 16 << 20)
    return Reply(status: Int(response.status.code), contentType: response.headers.first(name: "content-type"),
                 body: Data(buffer: collected))
  }

  /// A `generateContent` body with one user turn, greedy and short.
  static func generateBody(_ prompt: String, maxOutputTokens: Int = 12, extra: [String: Any] = [:]) -> [String: Any] {
    var body: [String: Any] = [
      "contents": [["role": "user", "parts": [["text": prompt]]]],
      "generationConfig": ["temperature": 0, "topK": 1, "maxOutputTokens": maxOutputTokens],
    ]
    for (key, value) in extra { body[key] = value }
    return body
  }
}
