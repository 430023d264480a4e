import Foundation
import Logging

/// Finds the network interface that routes to a host from Linux's routing tables, and whether it
/// is cellular or metered.
///
/// - Route: the longest-prefix match for the host's address in `/proc/net/route` (IPv4) or
///   `/proc/net/ipv6_route` (IPv6); loopback addresses use `lo`.
/// - Cellular: `/sys/class/net/<if>/uevent` says `DEVTYPE=wwan`, or the interface's device belongs
///   to the `wwan` subsystem (`/sys/class/net/<if>/device/subsystem` links to `…/wwan`).
/// - Metered: `nmcli -t -g GENERAL.METERED device show <if>` answers `yes` or `yes (guessed)` (when
///   NetworkManager is installed).
///
/// The roots of `/proc` and `/sys` and the command runner are injectable, so tests use fake trees.
/// A host name is resolved with `getaddrinfo` (which blocks while it runs); numeric addresses and
/// `localhost` are not looked up. Traffic to this machine's own non-loopback addresses is judged
/// by the main routing table, not the local one.
///
/// ```swift
/// let probe = LinuxNetworkProbe()
/// let path = await probe.path(to: "models.example.com")   // e.g. "wwan0 (cellular)"
/// ```
public struct LinuxNetworkProbe: NetworkProbe {
  /// Where `/proc` is (`net/route`, `net/ipv6_route`).
  public var procRoot: URL
  /// Where `/sys` is (`class/net/<if>/…`).
  public var sysRoot: URL
  /// Runs `nmcli`; `nil` skips the metered check.
  public var runCommand: CommandRunner?
  private let logger: Logger

  /// A probe of the real system (or of the trees under `procRoot` and `sysRoot`).
  public init(procRoot: URL = URL(fileURLWithPath: "/proc", isDirectory: true),
              sysRoot: URL = URL(fileURLWithPath: "/sys", isDirectory: true),
              runCommand: CommandRunner? = SystemCommandRunner.make(),
              logger: Logger = Logger(label: "HybridAI.modelDelivery.network")) {
    self.procRoot = procRoot
    self.sysRoot = sysRoot
    self.runCommand = runCommand
    self.logger = logger
  }

  public func path(to host: String) async -> NetworkPath {
    let addresses = IPAddress.resolve(host)
    guard let interface = interface(for: addresses) else {
      logger.debug("no route to the model server found", metadata: [
        "host": "\(host)", "addresses": "\(addresses.map(\.description))",
      ])
      return NetworkPath(interface: nil)
    }
    if interface == "lo" { return NetworkPath(interface: interface) }
    let cellular = isCellular(interface)
    let metered = await isMetered(interface)
    let path = NetworkPath(interface: interface, isCellular: cellular, isMetered: metered)
    logger.debug("network path to the model server", metadata: ["host": "\(host)", "path": "\(path)"])
    return path
  }

  /// The interface routing to the first address that has a route.
  func interface(for addresses: [IPAddress]) -> String? {
    var ipv4: RouteTable?
    var ipv6: RouteTable?
    for address in addresses {
      if address.isLoopback { return "lo" }
      if let mapped = address.unmappedIPv4 ?? (address.isIPv4 ? address : nil) {
        if ipv4 == nil { ipv4 = RouteTable(routes: RouteTable.parseIPv4(read("net/route", under: procRoot) ?? "")) }
        if let interface = ipv4?.interface(for: mapped) { return interface }
      } else {
        if ipv6 == nil {
          ipv6 = RouteTable(routes: RouteTable.parseIPv6(read("net/ipv6_route", under: procRoot) ?? ""))
        }
        if let interface = ipv6?.interface(for: address) { return interface }
      }
    }
    return nil
  }

  /// Whether `interface` is a WWAN (cellular modem) interface.
  func isCellular(_ interface: String) -> Bool {
    guard !interface.contains("/"), interface != ".", interface != ".." else { return false }
    let base = "class/net/\(interface)"
    if let uevent = read("\(base)/uevent", under: sysRoot) {
      for line in uevent.split(whereSeparator: \.isNewline) where line.hasPrefix("DEVTYPE=") {
        if line.dropFirst("DEVTYPE=".count).lowercased() == "wwan" { return true }
      }
    }
    let subsystem = sysRoot.appendingPathComponent("\(base)/device/subsystem").path
    if let target = try? FileManager.default.destinationOfSymbolicLink(atPath: subsystem),
       URL(fileURLWithPath: target).lastPathComponent == "wwan" {
      return true
    }
    return false
  }

  /// Whether NetworkManager says `interface`'s connection is metered.
  func isMetered(_ interface: String) async -> Bool {
    guard let runCommand else { return false }
    guard let answer = await runCommand(["nmcli", "-t", "-g", "GENERAL.METERED", "device", "show", interface]) else {
      return false
    }
    let value = answer.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
    return value == "yes" || value.hasPrefix("yes ")
  }

  private func read(_ relative: String, under root: URL) -> String? {
    guard let data = FileManager.default.contents(atPath: root.appendingPathComponent(relative).path) else { return nil }
    return String(decoding: data, as: UTF8.self)
  }
}
