import Foundation
import ModelDelivery
import Synchronization
import Testing

/// `LinuxNetworkProbe` on fake `/proc` and `/sys` trees, and the download conditions it serves.
@Suite struct NetworkProbeTests {
  /// A fake system: routes (IPv4 and IPv6), interfaces in sysfs, and NetworkManager's answers.
  struct FakeSystem {
    let root: URL
    var proc: URL { root.appendingPathComponent("proc", isDirectory: true) }
    var sys: URL { root.appendingPathComponent("sys", isDirectory: true) }

    // 192.168.0.0/24 and default via eth0 (metric 100), default via wlan0 (metric 600),
    // 10.0.0.0/8 via wwan0, 10.1.2.0/24 via mhi0, 172.16.0.0/12 rejected, 10.7.0.0/16 down.
    static let ipv4Routes = """
      Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT
      eth0\t00000000\t0100A8C0\t0003\t0\t0\t100\t00000000\t0\t0\t0
      wlan0\t00000000\t0101A8C0\t0003\t0\t0\t600\t00000000\t0\t0\t0
      eth0\t0000A8C0\t00000000\t0001\t0\t0\t100\t00FFFFFF\t0\t0\t0
      wwan0\t0000000A\t00000000\t0001\t0\t0\t0\t000000FF\t0\t0\t0
      mhi0\t0002010A\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0
      lo\t000010AC\t00000000\t0201\t0\t0\t0\t0000F0FF\t0\t0\t0
      usb0\t0000070A\t00000000\t0000\t0\t0\t0\t0000FFFF\t0\t0\t0

      """
    // 2001:db8::/32 via wwan0, default via eth0.
    static let ipv6Routes = """
      20010db8000000000000000000000000 20 00000000000000000000000000000000 00 00000000000000000000000000000000 00000100 00000001 00000000 00000001    wwan0
      00000000000000000000000000000000 00 00000000000000000000000000000000 00 fe800000000000000000000000000001 00000400 00000001 00000000 00000003     eth0

      """

    static func make() throws -> FakeSystem {
      let system = FakeSystem(root: try TestSupport.temporaryDirectory())
      try system.write("net/route", ipv4Routes, under: system.proc)
      try system.write("net/ipv6_route", ipv6Routes, under: system.proc)
      try system.write("class/net/eth0/uevent", "INTERFACE=eth0\nIFINDEX=2\n", under: system.sys)
      try system.write("class/net/wlan0/uevent", "DEVTYPE=wlan\nINTERFACE=wlan0\nIFINDEX=3\n", under: system.sys)
      try system.write("class/net/wwan0/uevent", "DEVTYPE=wwan\nINTERFACE=wwan0\nIFINDEX=4\n", under: system.sys)
      // An MHI modem: no DEVTYPE, but its device belongs to the wwan subsystem.
      try system.write("class/net/mhi0/uevent", "INTERFACE=mhi0\nIFINDEX=5\n", under: system.sys)
      try FileManager.default.createDirectory(at: system.sys.appendingPathComponent("class/wwan"),
                                              withIntermediateDirectories: true)
      try FileManager.default.createDirectory(at: system.sys.appendingPathComponent("class/net/mhi0/device"),
                                              withIntermediateDirectories: true)
      try FileManager.default.createSymbolicLink(atPath: system.sys.appendingPathComponent("class/net/mhi0/device/subsystem").path,
                                                 withDestinationPath: "../../../../class/wwan")
      return system
    }

    func write(_ relative: String, _ text: String, under base: URL) throws {
      let url = base.appendingPathComponent(relative)
      try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
      try Data(text.utf8).write(to: url)
    }

    func probe(metered: Set<String> = [], calls: CallLog? = nil) -> LinuxNetworkProbe {
      LinuxNetworkProbe(procRoot: proc, sysRoot: sys, runCommand: { arguments in
        calls?.record(arguments)
        guard let interface = arguments.last else { return nil }
        return metered.contains(interface) ? "yes (guessed)\n" : "no\n"
      })
    }
  }

  /// The commands a fake runner was asked to run.
  final class CallLog: Sendable {
    private let calls = Mutex<[[String]]>([])
    func record(_ arguments: [String]) { calls.withLock { $0.append(arguments) } }
    var all: [[String]] { calls.withLock { $0 } }
  }

  /// A probe that asks `inner` about `host` whatever the server is (the test server listens on
  /// loopback, which is never cellular), counting its calls.
  final class RedirectedProbe: NetworkProbe {
    let inner: any NetworkProbe
    let host: String
    private let count = Mutex(0)
    init(_ inner: any NetworkProbe, host: String) {
      self.inner = inner
      self.host = host
    }
    var calls: Int { count.withLock { $0 } }
    func path(to _: String) async -> NetworkPath {
      count.withLock { $0 += 1 }
      return await inner.path(to: host)
    }
  }

  @Test(arguments: [
    ("8.8.8.8", "eth0"), ("192.168.0.7", "eth0"), ("10.9.9.9", "wwan0"), ("10.1.2.3", "mhi0"),
    ("172.16.0.1", "eth0"), ("10.7.0.1", "wwan0"), ("127.0.0.1", "lo"), ("127.3.4.5", "lo"), ("localhost", "lo"),
    ("::1", "lo"), ("[::1]", "lo"), ("2001:db8::5", "wwan0"), ("2606:4700::1111", "eth0"), ("::ffff:10.9.9.9", "wwan0"),
  ])
  func theLongestMatchingUsableRouteNamesTheInterface(host: String, interface: String) async throws {
    let system = try FakeSystem.make()
    defer { TestSupport.cleanUp(system.root) }
    #expect(await system.probe().path(to: host).interface == interface)
  }

  @Test func wwanInterfacesAreCellularAndNetworkManagerSaysWhatIsMetered() async throws {
    let system = try FakeSystem.make()
    defer { TestSupport.cleanUp(system.root) }
    let calls = CallLog()
    let probe = system.probe(metered: ["eth0"], calls: calls)

    #expect(await probe.path(to: "10.9.9.9") == NetworkPath(interface: "wwan0", isCellular: true, isMetered: false))
    #expect(await probe.path(to: "10.1.2.3") == NetworkPath(interface: "mhi0", isCellular: true))
    #expect(await probe.path(to: "8.8.8.8") == NetworkPath(interface: "eth0", isCellular: false, isMetered: true))
    #expect(await probe.path(to: "8.8.8.8").isExpensive)
    #expect(await probe.path(to: "127.0.0.1") == NetworkPath(interface: "lo"))
    #expect(calls.all.first == ["nmcli", "-t", "-g", "GENERAL.METERED", "device", "show", "wwan0"])
    #expect(!calls.all.contains { $0.last == "lo" })   // loopback is never asked about
  }

  @Test func withoutNetworkManagerNothingIsMetered() async throws {
    let system = try FakeSystem.make()
    defer { TestSupport.cleanUp(system.root) }
    let probe = LinuxNetworkProbe(procRoot: system.proc, sysRoot: system.sys, runCommand: nil)
    #expect(await probe.path(to: "8.8.8.8") == NetworkPath(interface: "eth0"))
    let missing = LinuxNetworkProbe(procRoot: system.proc, sysRoot: system.sys,
                                    runCommand: SystemCommandRunner.make())   // runs `nmcli` if installed
    _ = await missing.path(to: "8.8.8.8")
    #expect(SystemCommandRunner.locate("definitely-not-a-command-\(UUID().uuidString)") == nil)
  }

  @Test func noRouteAtAllIsReportedAsNoInterface() async throws {
    let root = try TestSupport.temporaryDirectory()
    defer { TestSupport.cleanUp(root) }
    let probe = LinuxNetworkProbe(procRoot: root, sysRoot: root, runCommand: nil)
    #expect(await probe.path(to: "8.8.8.8") == NetworkPath(interface: nil))
  }

  @Test func theRealSystemCanBeProbed() async {
    // Whatever this machine's routes are, loopback is `lo` and nothing crashes.
    #expect(await LinuxNetworkProbe().path(to: "127.0.0.1").interface == "lo")
  }

  @Test func aCellularRouteIsRefusedBeforeAnyRequest() async throws {
    let system = try FakeSystem.make()
    defer { TestSupport.cleanUp(system.root) }
    let environment = try await FaultyEnvironment.make()
    defer { Task { await environment.close() } }
    await environment.server.publish("m", data: TestSupport.bytes(10_000, seed: 51))
    let probe = RedirectedProbe(system.probe(), host: "10.9.9.9")
    let downloader = environment.downloader(networkProbe: probe)

    await #expect(throws: ModelDownloadError.cellularNotAllowed(interface: "wwan0")) {
      try await downloader.getModel(name: "m", downloadType: .latestModel,
                                    conditions: ModelDownloadConditions(allowsCellularAccess: false))
    }
    #expect(environment.server.requests.isEmpty)

    // Metered counts as cellular.
    let metered = environment.downloader(networkProbe: RedirectedProbe(system.probe(metered: ["eth0"]), host: "8.8.8.8"))
    await #expect(throws: ModelDownloadError.cellularNotAllowed(interface: "eth0")) {
      try await metered.getModel(name: "m", downloadType: .latestModel,
                                 conditions: ModelDownloadConditions(allowsCellularAccess: false))
    }
    #expect(environment.server.requests.isEmpty)

    // Allowed: the probe is not even asked.
    let model = try await downloader.getModel(name: "m", downloadType: .latestModel)
    #expect(model.version == "1")
    #expect(probe.calls == 1)
  }

  @Test func waitsForAllowedNetworkWaitsUntilTheRouteChanges() async throws {
    let system = try FakeSystem.make()
    defer { TestSupport.cleanUp(system.root) }
    let environment = try await FaultyEnvironment.make()
    defer { Task { await environment.close() } }
    await environment.server.publish("m", data: TestSupport.bytes(100_000, seed: 52))
    let probe = RedirectedProbe(system.probe(), host: "10.9.9.9")
    let downloader = environment.downloader(networkProbe: probe)
    let task = Task {
      try await downloader.getModel(name: "m", downloadType: .latestModel,
                                    conditions: ModelDownloadConditions(allowsCellularAccess: false, waitsForAllowedNetwork: true))
    }
    #expect(await TestSupport.eventually { probe.calls >= 3 })
    #expect(environment.server.requests.isEmpty)

    // The modem's routes go away: 10.9.9.9 now leaves through eth0.
    try system.write("net/route", FakeSystem.ipv4Routes.split(separator: "\n").filter { !$0.hasPrefix("wwan0") }
      .joined(separator: "\n"), under: system.proc)
    let model = try await task.value

    #expect(model.version == "1")
    #expect(environment.server.stats.infoRequests == 1)
  }

  @Test func waitingForAnAllowedNetworkCanBeCancelled() async throws {
    let environment = try await FaultyEnvironment.make()
    defer { Task { await environment.close() } }
    await environment.server.publish("m", data: TestSupport.bytes(1000, seed: 53))
    let probe = SwitchableNetworkProbe(NetworkPath(interface: "wwan0", isCellular: true))
    let downloader = environment.downloader(networkProbe: probe)
    let task = Task {
      try await downloader.getModel(name: "m", downloadType: .latestModel,
                                    conditions: ModelDownloadConditions(allowsCellularAccess: false, waitsForAllowedNetwork: true))
    }
    #expect(await TestSupport.eventually(upTo: .seconds(300)) { probe.calls >= 2 })
    task.cancel()
    await #expect(throws: CancellationError.self) { try await task.value }
    #expect(environment.server.requests.isEmpty)
  }

  @Test func aDownloadThatMovesToCellularStopsAtTheNextReconnection() async throws {
    let environment = try await FaultyEnvironment.make()
    defer { Task { await environment.close() } }
    let size = 1 << 20
    await environment.server.publish("m", data: TestSupport.bytes(size, seed: 54))
    environment.server.configure { $0.cutOffsets = [size / 2] }
    let probe = SwitchableNetworkProbe(NetworkPath(interface: "wlan0"))
    let downloader = environment.downloader(networkProbe: probe)
    let conditions = ModelDownloadConditions(allowsCellularAccess: false)
    // 32 chunks 20 ms apart before the cut (~0.6 s): the network changes before the request after it.
    environment.server.configure { $0.chunkDelay = .milliseconds(20); $0.chunkSize = 16 << 10 }
    let task = Task { try await downloader.getModel(name: "m", downloadType: .latestModel, conditions: conditions) }
    #expect(await environment.server.wait { $0.blobBytesSent > 0 })
    probe.set(NetworkPath(interface: "wwan0", isCellular: true))

    await #expect(throws: ModelDownloadError.cellularNotAllowed(interface: "wwan0")) { try await task.value }
    #expect(environment.server.stats.blobRequests == 1)
  }
}
