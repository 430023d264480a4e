/// Tells which network interface traffic to a host would use, and whether it is cellular or
/// metered, so that ``ModelDownloadConditions/allowsCellularAccess`` can be honoured.
///
/// ``LinuxNetworkProbe`` reads the kernel's routing tables; tests inject their own.
public protocol NetworkProbe: Sendable {
  /// The path that traffic to `host` (a name or an IP address) would take now.
  func path(to host: String) async -> NetworkPath
}

/// A probe that always answers the same path (for tests and for platforms without routing tables).
public struct FixedNetworkProbe: NetworkProbe {
  /// The path answered.
  public var path: NetworkPath

  /// A probe answering `path`.
  public init(_ path: NetworkPath) { self.path = path }

  public func path(to host: String) async -> NetworkPath { path }
}
