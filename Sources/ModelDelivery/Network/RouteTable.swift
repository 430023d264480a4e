/// The kernel's routing table as `/proc/net/route` (IPv4) and `/proc/net/ipv6_route` (IPv6) show it,
/// and the longest-prefix match that picks the interface for a destination.
struct RouteTable: Sendable {
  struct Route: Sendable, Hashable {
    var interface: String
    var destination: IPAddress
    var prefixLength: Int
    var metric: UInt32
  }

  var routes: [Route]

  /// `RTF_UP`.
  private static let up: UInt32 = 0x0001
  /// `RTF_REJECT`.
  private static let reject: UInt32 = 0x0200

  /// The interface of the most specific usable route to `address` (lowest metric among equals).
  func interface(for address: IPAddress) -> String? {
    routes.filter { address.matches(network: $0.destination, prefixLength: $0.prefixLength) }
      .min { ($0.prefixLength, $1.metric) > ($1.prefixLength, $0.metric) }?
      .interface
  }

  /// Parses `/proc/net/route`: a header line, then `Iface Destination Gateway Flags RefCnt Use Metric
  /// Mask …`, with addresses as the hex of the in-memory (network order) 32-bit value.
  static func parseIPv4(_ text: String) -> [Route] {
    text.split(whereSeparator: \.isNewline).dropFirst().compactMap { line -> Route? in
      let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
      guard fields.count >= 8, let destination = UInt32(fields[1], radix: 16), let flags = UInt32(fields[3], radix: 16),
            let metric = UInt32(fields[6]), let mask = UInt32(fields[7], radix: 16),
            flags & up != 0, flags & reject == 0 else { return nil }
      let maskValue = UInt32(bigEndian: mask)
      // A mask must be contiguous ones; count them.
      let prefixLength = maskValue.leadingNonzeroBitCount
      guard maskValue == (prefixLength == 0 ? 0 : ~UInt32(0) << (32 - prefixLength)) else { return nil }
      let destinationBytes = withUnsafeBytes(of: destination) { Array($0) }  // memory order = network order
      return Route(interface: String(fields[0]), destination: IPAddress(bytes: destinationBytes),
                   prefixLength: prefixLength, metric: metric)
    }
  }

  /// Parses `/proc/net/ipv6_route`: `dest prefixlen src srcprefixlen nexthop metric refcnt use flags iface`,
  /// addresses as 32 hex digits in network order.
  static func parseIPv6(_ text: String) -> [Route] {
    text.split(whereSeparator: \.isNewline).compactMap { line -> Route? in
      let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
      guard fields.count >= 10, fields[0].utf8.count == 32, let prefixLength = Int(fields[1], radix: 16),
            let metric = UInt32(fields[5], radix: 16), let flags = UInt32(fields[8], radix: 16),
            flags & up != 0, flags & reject == 0, prefixLength <= 128 else { return nil }
      var bytes: [UInt8] = []
      var index = fields[0].startIndex
      while index < fields[0].endIndex {
        let next = fields[0].index(index, offsetBy: 2)
        guard let byte = UInt8(fields[0][index..<next], radix: 16) else { return nil }
        bytes.append(byte)
        index = next
      }
      return Route(interface: String(fields[9]), destination: IPAddress(bytes: bytes), prefixLength: prefixLength,
                   metric: metric)
    }
  }
}

extension UInt32 {
  /// The number of leading one bits.
  fileprivate var leadingNonzeroBitCount: Int { (~self).leadingZeroBitCount }
}
