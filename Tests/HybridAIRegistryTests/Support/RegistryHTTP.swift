import AsyncHTTPClient
import Foundation
import HybridAIServerTestSupport
import HybridAITestSupport
import NIOCore
import NIOHTTP1
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Registry requests beyond ``TestHTTP``: as the admin, and raw bytes on a socket.
enum RegistryHTTP {
  static let adminHeaders = ["authorization": "Bearer \(RunningRegistry.adminToken)"]

  static func admin(_ method: HTTPMethod, _ url: URL, json: Any? = nil, body: Data? = nil) async throws -> TestHTTP.Reply {
    try await TestHTTP.send(method, url, headers: adminHeaders, json: json, body: body)
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
