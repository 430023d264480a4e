import Foundation
import HybridAIProcess
import HybridAIServerTestSupport
import HybridAITestSupport
import Testing

/// The files in deploy/ are what an operator copies: they must be valid for the real tools.
@Suite("deploy/: the example nginx config and systemd unit")
struct DeploymentFilesTests {
  @Test("the systemd unit passes systemd-analyze verify (with ExecStart pointed at the built hybrid)")
  func systemdUnit() async throws {
    let unit = try String(contentsOf: TestRepository.file("deploy/systemd/hybrid-serve.service"), encoding: .utf8)
    #expect(unit.contains("ExecStart=/opt/hybrid/bin/hybrid serve --config /etc/hybridai/serve.yaml"))
    let directory = try TemporaryDirectory("systemd-unit")
    defer { directory.remove() }
    let copy = directory.url.appendingPathComponent("hybrid-serve.service")
    try Data(unit.replacingOccurrences(of: "/opt/hybrid/bin/hybrid", with: HybridCommandTests.executable.path).utf8).write(to: copy)
    let verified = try await ChildProcess.run(URL(fileURLWithPath: "/usr/bin/systemd-analyze"), ["verify", copy.path],
                                             mergingStandardError: true)
    #expect(verified.status == 0 && verified.standardOutput.isEmpty, "\(verified.standardOutput)")

    // The check is real: a unit with a typo fails it.
    try Data(unit.replacingOccurrences(of: "/opt/hybrid/bin/hybrid", with: HybridCommandTests.executable.path)
      .replacingOccurrences(of: "KillSignal=", with: "KilSignal=").utf8).write(to: copy)
    let typo = try await ChildProcess.run(URL(fileURLWithPath: "/usr/bin/systemd-analyze"), ["verify", copy.path],
                                          mergingStandardError: true)
    #expect(typo.standardOutput.contains("Unknown key"), "\(typo.standardOutput)")
  }

  @Test("the nginx config passes nginx -t as the tests run it (the two-instance tests use it for real)")
  func nginxConfig() async throws {
    // Upstreams that refuse for the whole test: ports merely free a moment ago can be taken by
    // another test's server meanwhile (seen once: nginx then proxied to it instead of answering 502).
    let down = [try Sockets.refusingPort(), try Sockets.refusingPort()]
    defer { Sockets.closeAll(down.map(\.descriptor)) }
    let nginx = try await TestNginx.start(upstreamPorts: down.map(\.port))
    defer { Task { await nginx.stop() } }
    let checked = try await ChildProcess.run(TestNginx.executable, ["-t", "-p", nginx.directory.path, "-e", "/dev/stderr",
                                                                    "-c", nginx.directory.appendingPathComponent("nginx.conf").path],
                                             mergingStandardError: true)
    #expect(checked.status == 0 && checked.standardOutput.contains("test is successful"), "\(checked.standardOutput)")
    // Both instances down: nginx answers 502 for API calls and keeps running.
    #expect(try await TestHTTP.send(.GET, nginx.baseURL.appending(path: "v1beta/models")).status == 502)
  }

  @Test("nginx keeps health and metrics from other machines, however the path is spelled")
  func nginxMonitoringPaths() async throws {
    let down = [try Sockets.refusingPort(), try Sockets.refusingPort()]
    defer { Sockets.closeAll(down.map(\.descriptor)) }
    // The test's requests come from 127.0.0.1: allow another address only, so they stand for a stranger's.
    let nginx = try await TestNginx.start(upstreamPorts: down.map(\.port), replacing: [("allow 127.0.0.1;", "allow 192.0.2.1;")])
    defer { Task { await nginx.stop() } }
    for path in ["/metrics", "/metrics/", "/readyz/", "/healthz", "/healthz//", "/metrics/x", "//metrics", "/%6detrics"] {
      let status = try await TestHTTP.send(.GET, URL(string: nginx.baseURL.absoluteString + path)!).status
      #expect(status == 403, "\(path): \(status)")
    }
    #expect(try await TestHTTP.send(.GET, nginx.baseURL.appending(path: "v1beta/models")).status == 502, "the APIs stay open")
  }
}
