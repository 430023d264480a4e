import AsyncHTTPClient
import Foundation
import HybridAITestSupport
import NIOCore
import NIOHTTP1
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// HTTP against the registry, with the response headers the registry's protocol depends on.
enum RegistryHTTP {
  struct Reply {
    var status: Int
    var headers: HTTPHeaders
    var body: Data

    var text: String { String(decoding: body, as: UTF8.self) }
    var json: [String: Any] {
      get throws { try #require(JSONSerialization.jsonObject(with: body) as? [String: Any], "not a JSON object: \(text)") }
    }
    /// `error.status` of Google's error envelope.
    var errorStatus: String? { (try? json["error"] as? [String: Any])?["status"] as? String }
    var errorMessage: String? { (try? json["error"] as? [String: Any])?["message"] as? String }
    func header(_ name: String) -> String? { headers.first(name: name) }
  }

  static let adminHeaders = ["authorization": "Bearer \(RegistryTestServer.adminToken)"]

  /// Sends a request; `json` is serialized, `body` sent as is (with its Content-Length), `stream`
  /// sent chunked (no Content-Length).
  static func send(_ method: HTTPMethod, _ url: URL, headers: [String: String] = [:], json: Any? = nil,
                   body: Data? = nil, stream: [Data]? = nil) async throws -> Reply {
    var request = HTTPClientRequest(url: url.absoluteString)
    request.method = method
    for (name, value) in headers { request.headers.replaceOrAdd(name: name, value: value) }
    if let json {
      request.headers.add(name: "content-type", value: "application/json")
      request.body = .bytes(ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: json, options: [.fragmentsAllowed])))
    } else if let body {
      request.body = .bytes(ByteBuffer(bytes: body))
    } else if let stream {
      let chunks = stream.map { ByteBuffer(bytes: $0) }
      request.body = .stream(chunks.async, length: .unknown)
    }
    let response = try await TestHTTPClient.shared.execute(request, timeout: .seconds(600))
    let collected = try await response.body.collect(upTo: 64 << 20)
    return Reply(status: Int(response.status.code), headers: response.headers, body: Data(buffer: collected))
  }

  static func admin(_ method: HTTPMethod, _ url: URL, json: Any? = nil, body: Data? = nil) async throws -> Reply {
    try await send(method, url, headers: adminHeaders, json: json, body: body)
  }

  /// Writes `request` on a fresh TCP connection, closes the sending side, and returns what the
  /// server answers until it closes the connection (for requests HTTP clients refuse to send,
  /// like a body shorter than its Content-Length).
  static func raw(port: Int, _ request: [UInt8]) throws -> String {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    try #require(descriptor >= 0)
    defer { close(descriptor) }
    var timeout = timeval(tv_sec: 60, tv_usec: 0)   // generous: the suite shares two cores
    setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port)).bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let connected = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    try #require(connected == 0, "connect failed: errno \(errno)")
    let sent = request.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, 0) }
    try #require(sent == request.count)
    shutdown(descriptor, Int32(SHUT_WR))
    var answer: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 64 << 10)
    while true {
      let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
      if count <= 0 { break }
      answer += buffer[..<count]
    }
    return String(decoding: answer, as: UTF8.self)
  }
}

extension Array where Element: Sendable {
  /// The elements as an async sequence.
  var async: AsyncStream<Element> {
    AsyncStream { continuation in
      for element in self { continuation.yield(element) }
      continuation.finish()
    }
  }
}
