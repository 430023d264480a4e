/// When a download may use the network.
///
/// ```swift
/// // Not over a cellular modem or a metered connection; wait for another network instead of failing.
/// let conditions = ModelDownloadConditions(allowsCellularAccess: false, waitsForAllowedNetwork: true)
/// ```
///
/// Before using the network the downloader asks its ``NetworkProbe`` which interface routes to the
/// server. ``LinuxNetworkProbe`` reports WWAN (modem) interfaces as cellular, and interfaces that
/// NetworkManager marks metered as metered; both count as cellular here.
public struct ModelDownloadConditions: Sendable, Hashable, Codable {
  /// Whether a cellular or metered network may be used. When it may not and the server is reached
  /// through one, the download fails with ``ModelDownloadError/cellularNotAllowed(interface:)``,
  /// or waits when ``waitsForAllowedNetwork`` is set.
  public var allowsCellularAccess: Bool
  /// Whether to wait (checking the network now and then) until an allowed network is in use,
  /// rather than failing at once.
  public var waitsForAllowedNetwork: Bool

  /// Conditions; the default allows any network.
  public init(allowsCellularAccess: Bool = true, waitsForAllowedNetwork: Bool = false) {
    self.allowsCellularAccess = allowsCellularAccess
    self.waitsForAllowedNetwork = waitsForAllowedNetwork
  }
}
