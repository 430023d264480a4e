import Foundation

/// An IPv4 or IPv6 address as 4 or 16 bytes in network order.
struct IPAddress: Sendable, Hashable, CustomStringConvertible {
  let bytes: [UInt8]

  var isIPv4: Bool { bytes.count == 4 }

  /// 127.0.0.0/8 or ::1 (and IPv4-mapped loopback).
  var isLoopback: Bool {
    if isIPv4 { return bytes[0] == 127 }
    if bytes == [UInt8](repeating: 0, count: 15) + [1] { return true }
    if bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xFF, bytes[11] == 0xFF { return bytes[12] == 127 }
    return false
  }

  /// The IPv4 address inside an IPv4-mapped IPv6 address (`::ffff:a.b.c.d`).
  var unmappedIPv4: IPAddress? {
    guard !isIPv4, bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xFF, bytes[11] == 0xFF else { return nil }
    return IPAddress(bytes: Array(bytes[12...]))
  }

  /// Parses a numeric address (`10.0.0.1`, `::1`, `[fe80::1]`); `nil` for anything else.
  init?(parsing text: String) {
    var text = text
    if text.hasPrefix("["), text.hasSuffix("]") { text = String(text.dropFirst().dropLast()) }
    if let zone = text.firstIndex(of: "%") { text = String(text[..<zone]) }
    var v4 = in_addr()
    if inet_pton(AF_INET, text, &v4) == 1 {
      self.bytes = withUnsafeBytes(of: &v4) { Array($0) }
      return
    }
    var v6 = in6_addr()
    if inet_pton(AF_INET6, text, &v6) == 1 {
      self.bytes = withUnsafeBytes(of: &v6) { Array($0) }
      return
    }
    return nil
  }

  init(bytes: [UInt8]) {
    precondition(bytes.count == 4 || bytes.count == 16)
    self.bytes = bytes
  }

  /// Whether the first `prefixLength` bits equal those of `network`.
  func matches(network: IPAddress, prefixLength: Int) -> Bool {
    guard network.bytes.count == bytes.count, prefixLength >= 0, prefixLength <= bytes.count * 8 else { return false }
    var bits = prefixLength
    for index in bytes.indices where bits > 0 {
      let take = min(8, bits)
      let mask: UInt8 = take == 8 ? 0xFF : ~(0xFF >> UInt8(take))
      if bytes[index] & mask != network.bytes[index] & mask { return false }
      bits -= take
    }
    return true
  }

  var description: String {
    if isIPv4 { return bytes.map(String.init).joined(separator: ".") }
    return stride(from: 0, to: 16, by: 2).map { String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16) }
      .joined(separator: ":")
  }

  /// The host's addresses: itself when numeric, `localhost` as loopback, else from `getaddrinfo`
  /// (IPv4 first). Blocks while resolving.
  static func resolve(_ host: String) -> [IPAddress] {
    if let address = IPAddress(parsing: host) { return [address] }
    if host.lowercased() == "localhost" || host.lowercased().hasSuffix(".localhost") {
      return [IPAddress(bytes: [127, 0, 0, 1])]
    }
    var hints = addrinfo()
    hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
    var list: UnsafeMutablePointer<addrinfo>?
    guard getaddrinfo(host, nil, &hints, &list) == 0, let first = list else { return [] }
    defer { freeaddrinfo(first) }
    var v4: [IPAddress] = []
    var v6: [IPAddress] = []
    var entry: UnsafeMutablePointer<addrinfo>? = first
    while let current = entry {
      if let address = current.pointee.ai_addr {
        switch Int32(current.pointee.ai_family) {
        case AF_INET:
          let bytes = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { pointer in
            withUnsafeBytes(of: pointer.pointee.sin_addr) { Array($0) }
          }
          v4.append(IPAddress(bytes: bytes))
        case AF_INET6:
          let bytes = address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { pointer in
            withUnsafeBytes(of: pointer.pointee.sin6_addr) { Array($0) }
          }
          v6.append(IPAddress(bytes: bytes))
        default: break
        }
      }
      entry = current.pointee.ai_next
    }
    var seen = Set<IPAddress>()
    return (v4 + v6).filter { seen.insert($0).inserted }
  }
}
