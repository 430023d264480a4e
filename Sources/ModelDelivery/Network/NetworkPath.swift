/// The way traffic to a host leaves this device, as a ``NetworkProbe`` sees it.
public struct NetworkPath: Sendable, Hashable, CustomStringConvertible {
  /// The network interface (`eth0`, `wlan0`, `wwan0`, `lo`), or `nil` when no route was found.
  public var interface: String?
  /// Whether the interface is a cellular modem (WWAN).
  public var isCellular: Bool
  /// Whether the network is metered (NetworkManager's `GENERAL.METERED`).
  public var isMetered: Bool

  /// A path.
  public init(interface: String?, isCellular: Bool = false, isMetered: Bool = false) {
    self.interface = interface
    self.isCellular = isCellular
    self.isMetered = isMetered
  }

  /// Whether ``ModelDownloadConditions/allowsCellularAccess`` must allow this path: it is cellular
  /// or metered.
  public var isExpensive: Bool { isCellular || isMetered }

  public var description: String {
    var traits: [String] = []
    if isCellular { traits.append("cellular") }
    if isMetered { traits.append("metered") }
    return (interface ?? "no route") + (traits.isEmpty ? "" : " (\(traits.joined(separator: ", ")))")
  }
}
