#if canImport(Glibc)
import Foundation
import Glibc
import HybridAITestSupport
#endif

/// Real sockets that make a connection fail in a particular way.
public enum Sockets {
  /// A loopback port that refuses connections: bound but not listening, and held until the
  /// returned descriptor is closed, so no listener started meanwhile (tests run in parallel) can
  /// take it — a port merely bound and closed again was seen reused by another test's server.
  public static func refusingPort() throws -> (port: Int, descriptor: Int32) {
    let fd = try boundSocket()
    return (try port(of: fd), fd)
  }

  /// A listener whose accept queue is full (backlog 0, one connection queued, never accepted):
  /// further connection attempts get no answer to their SYN, so connecting times out. Close the
  /// returned descriptors when done.
  public static func saturatedListener() throws -> (port: Int, descriptors: [Int32]) {
    let listener = try boundSocket()
    guard listen(listener, 0) == 0 else { throw POSIXError(errno: errno) }
    let listenerPort = try port(of: listener)
    let filler = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var address = loopback(port: listenerPort)
    let result = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(filler, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard result == 0 else { throw POSIXError(errno: errno) }
    return (listenerPort, [listener, filler])
  }

  /// A loopback port that was free a moment ago, for a server that cannot listen on port 0 and
  /// report its port (a child process such as llama-server). Another listener may take it first:
  /// retry with a new one when the server cannot bind.
  public static func freeLoopbackPort() throws -> Int {
    let fd = try boundSocket()
    defer { close(fd) }
    return try port(of: fd)
  }

  public static func closeAll(_ descriptors: [Int32]) {
    for fd in descriptors { close(fd) }
  }

  private static func boundSocket() throws -> Int32 {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw POSIXError(errno: errno) }
    var address = loopback(port: 0)
    let result = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard result == 0 else { close(fd); throw POSIXError(errno: errno) }
    return fd
  }

  private static func port(of fd: Int32) throws -> Int {
    var address = sockaddr_in()
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let result = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
    }
    guard result == 0 else { throw POSIXError(errno: errno) }
    return Int(UInt16(bigEndian: address.sin_port))
  }

  private static func loopback(port: Int) -> sockaddr_in {
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = UInt16(port).bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    return address
  }
}

extension POSIXError {
  init(errno code: Int32) {
    self.init(POSIXErrorCode(rawValue: code) ?? .EIO)
  }
}
