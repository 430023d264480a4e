import Foundation

/// A TCP socket bound to a free port on 127.0.0.1 and held until ``close()``: listening, it is a
/// server that accepts connections into its backlog and never answers; not listening, a port that
/// refuses connections. For tests and benchmarks of timeouts and fallbacks.
public final class LoopbackSocket: Sendable {
  /// The socket's file descriptor.
  public let descriptor: Int32
  /// The port it is bound to.
  public let port: Int

  /// Binds a fresh socket to 127.0.0.1 on a free port, and listens when `listening`.
  public init(listening: Bool) throws {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EMFILE) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) { pointer in
      pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
        bind(descriptor, socketAddress, length) == 0 && (!listening || listen(descriptor, 16) == 0)
          && getsockname(descriptor, socketAddress, &length) == 0
      }
    }
    guard bound else {
      let code = POSIXErrorCode(rawValue: errno) ?? .EADDRNOTAVAIL
      _ = Glibc.close(descriptor)
      throw POSIXError(code)
    }
    self.descriptor = descriptor
    port = Int(UInt16(bigEndian: address.sin_port))
  }

  /// Closes the socket (its port is free again).
  public func close() { _ = Glibc.close(descriptor) }
}
