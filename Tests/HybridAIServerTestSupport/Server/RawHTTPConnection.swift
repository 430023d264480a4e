#if canImport(Glibc)
import Foundation
import Glibc
import HybridAITestSupport
#endif

/// One HTTP/1.1 connection on a plain socket, written by hand: for tests that need to stop part
/// way through a request (an upload cut or stalled while the server stops).
public final class RawHTTPConnection: @unchecked Sendable {
  private let descriptor: Int32

  /// Connects to `127.0.0.1:port`. The socket becomes the connection's only once connected: a
  /// failed connection closes it here, and no `deinit` closes its number a second time (by then
  /// perhaps another thread's descriptor — a child process's pipe).
  public init(port: Int) throws {
    let socketDescriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard socketDescriptor >= 0 else { throw RawHTTPError.socket(errno) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let connected = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socketDescriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard connected == 0 else {
      let failure = errno
      close(socketDescriptor)
      throw RawHTTPError.socket(failure)
    }
    descriptor = socketDescriptor
  }

  deinit { close(descriptor) }

  /// Writes `bytes` whole.
  public func send(_ bytes: Data) throws {
    try bytes.withUnsafeBytes { buffer in
      var offset = 0
      while offset < buffer.count {
        let written = Glibc.send(descriptor, buffer.baseAddress! + offset, buffer.count - offset, Int32(MSG_NOSIGNAL))
        if written < 0 {
          if errno == EINTR { continue }
          throw RawHTTPError.socket(errno)
        }
        offset += written
      }
    }
  }

  /// Writes a request line and headers (and the blank line after them).
  public func sendHead(_ method: String, _ target: String, headers: [String: String]) throws {
    var head = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
    for (name, value) in headers.sorted(by: { $0.key < $1.key }) { head += "\(name): \(value)\r\n" }
    try send(Data((head + "\r\n").utf8))
  }

  /// Reads until the server closes the connection or `timeout` passes; returns the status code
  /// (0 when none arrived) and everything read. It polls without blocking and sleeps between
  /// polls, so it holds none of the few threads the whole suite's async tests share.
  public func readResponse(timeout: Duration = .seconds(60)) async -> (status: Int, text: String) {
    var received = Data()
    let deadline = ContinuousClock.now + timeout
    var buffer = [UInt8](repeating: 0, count: 65536)
    while ContinuousClock.now < deadline {
      var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
      let ready = poll(&poller, 1, 0)
      if ready < 0, errno != EINTR { break }
      guard ready > 0 else {
        try? await Task.sleep(for: .milliseconds(20))
        continue
      }
      let count = recv(descriptor, &buffer, buffer.count, 0)
      if count <= 0 { break }
      received.append(contentsOf: buffer[0..<count])
      if let text = String(data: received, encoding: .utf8), Self.isComplete(text) { break }
    }
    let text = String(decoding: received, as: UTF8.self)
    let status = text.hasPrefix("HTTP/1.1 ") ? Int(text.dropFirst(9).prefix(3)) ?? 0 : 0
    return (status, text)
  }

  /// Whether the server closes the connection (an end of stream or a reset) before `timeout`
  /// passes; bytes that arrive meanwhile are read and dropped.
  public func closesWithin(_ timeout: Duration) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    var buffer = [UInt8](repeating: 0, count: 65536)
    while ContinuousClock.now < deadline {
      var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
      let ready = poll(&poller, 1, 0)
      if ready < 0, errno != EINTR { return true }
      guard ready > 0 else {
        try? await Task.sleep(for: .milliseconds(20))
        continue
      }
      if recv(descriptor, &buffer, buffer.count, 0) <= 0 { return true }
    }
    return false
  }

  /// Whether `text` holds a whole response with a Content-Length.
  private static func isComplete(_ text: String) -> Bool {
    guard let end = text.range(of: "\r\n\r\n") else { return false }
    let head = text[..<end.lowerBound].lowercased()
    guard let line = head.split(separator: "\r\n").first(where: { $0.hasPrefix("content-length:") }),
          let length = Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) else { return false }
    return text[end.upperBound...].utf8.count >= length
  }
}

/// A socket call failed.
public enum RawHTTPError: Error {
  case socket(Int32)
}
