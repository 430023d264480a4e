import Foundation
import HybridAIProcess
import HybridAITestSupport

/// Debian's nginx (installed by scripts/bootstrap) in front of `hybrid serve` instances, run with
/// the project's example configuration (`deploy/nginx/hybrid.conf`) on a free loopback port, its
/// upstream servers pointed at the instances under test: the example is what is tested.
public final class TestNginx: Sendable {
  /// Where nginx listens: `http://127.0.0.1:PORT`.
  public let baseURL: URL
  public let port: Int
  /// Its configuration, logs and temporary files.
  public let directory: URL
  private let process: RunningChildProcess

  public static let executable = URL(fileURLWithPath: "/usr/sbin/nginx")

  private init(baseURL: URL, port: Int, directory: URL, process: RunningChildProcess) {
    self.baseURL = baseURL
    self.port = port
    self.directory = directory
    self.process = process
  }

  /// Starts nginx for `upstreamPorts` (on 127.0.0.1) and waits until it answers. With
  /// `clientRate` (e.g. `"4m"`, bytes a second) responses reach clients no faster: the example's
  /// unbuffered proxying becomes buffering in memory only (`proxy_max_temp_file_size 0`), since
  /// nginx applies `limit_rate` only to buffered responses, so an instance still sends at about
  /// that rate too (a test can stop it part way through a download).
  /// `replacing` edits the example's text first (each pair: the text, its replacement).
  public static func start(upstreamPorts: [Int], clientRate: String? = nil,
                           replacing edits: [(String, String)] = []) async throws -> TestNginx {
    // A port free a moment ago can be taken by another test's server before nginx binds it: then
    // nginx exits ("Address already in use") and another port is tried.
    var attempt = 0
    while true {
      attempt += 1
      do {
        return try await startOnce(upstreamPorts: upstreamPorts, clientRate: clientRate, replacing: edits)
      } catch ChildProcess.Failure.launchFailed(let reason) where reason.contains("Address already in use") && attempt < 3 {
        continue
      }
    }
  }

  private static func startOnce(upstreamPorts: [Int], clientRate: String?,
                                replacing edits: [(String, String)]) async throws -> TestNginx {
    let executable = try TestRepository.requireExecutable(Self.executable)
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hybrid-nginx-\(UUID().uuidString)")
    for folder in ["", "body", "proxy", "fastcgi", "uwsgi", "scgi"] {
      try FileManager.default.createDirectory(at: directory.appendingPathComponent(folder), withIntermediateDirectories: true)
    }
    let port = try Sockets.freeLoopbackPort()
    var site = try exampleSite(upstreamPorts: upstreamPorts, port: port)
    for (text, replacement) in edits {
      guard site.contains(text) else { throw ChildProcess.Failure.launchFailed("the example nginx config has no \(text)") }
      site = site.replacingOccurrences(of: text, with: replacement)
    }
    if let clientRate {
      site = site.replacingOccurrences(of: "proxy_buffering off;",
                                       with: "proxy_buffering on; proxy_max_temp_file_size 0; limit_rate \(clientRate);")
    }
    try Data(site.utf8).write(to: directory.appendingPathComponent("hybrid.conf"))
    let path = directory.path
    let main = """
      user root;
      daemon off;
      worker_processes 1;
      pid \(path)/nginx.pid;
      error_log \(path)/error.log info;
      events { worker_connections 512; }
      http {
        access_log \(path)/access.log;
        client_body_temp_path \(path)/body;
        proxy_temp_path \(path)/proxy;
        fastcgi_temp_path \(path)/fastcgi;
        uwsgi_temp_path \(path)/uwsgi;
        scgi_temp_path \(path)/scgi;
        include \(path)/hybrid.conf;
      }
      """
    try Data(main.utf8).write(to: directory.appendingPathComponent("nginx.conf"))
    let process = try await ChildProcess(executable: executable, arguments: [
      "-p", path, "-e", "\(path)/error.log", "-c", "\(path)/nginx.conf",
    ]).start(standardError: .collected)
    let nginx = TestNginx(baseURL: URL(string: "http://127.0.0.1:\(port)")!, port: port, directory: directory, process: process)
    for _ in 0..<200 {
      guard process.isRunning else { break }
      if (try? RawHTTPConnection(port: port)) != nil { return nginx }
      try await Task.sleep(for: .milliseconds(25))
    }
    let log = (try? String(contentsOf: directory.appendingPathComponent("error.log"), encoding: .utf8)) ?? ""
    await nginx.stop()
    throw ChildProcess.Failure.launchFailed("nginx did not start: \(log.suffix(2000))")
  }

  /// `deploy/nginx/hybrid.conf` with its upstream servers replaced by `upstreamPorts` and its
  /// `listen 80` by `127.0.0.1:port`.
  static func exampleSite(upstreamPorts: [Int], port: Int) throws -> String {
    let example = try String(contentsOf: TestRepository.file("deploy/nginx/hybrid.conf"), encoding: .utf8)
    var lines: [String] = []
    var upstreamsWritten = false
    for line in example.split(separator: "\n", omittingEmptySubsequences: false) {
      let trimmed = line.trimmingCharacters(in: .whitespaces)
      if trimmed.hasPrefix("server 127.0.0.1:") {
        if !upstreamsWritten {
          lines += upstreamPorts.map { "    server 127.0.0.1:\($0) max_fails=1 fail_timeout=5s;" }
          upstreamsWritten = true
        }
      } else if trimmed == "listen 80;" {
        lines.append("    listen 127.0.0.1:\(port);")
      } else {
        lines.append(String(line))
      }
    }
    guard upstreamsWritten else { throw ChildProcess.Failure.launchFailed("deploy/nginx/hybrid.conf has no upstream servers") }
    return lines.joined(separator: "\n")
  }

  /// The access log so far (one line a request).
  public var accessLog: String {
    (try? String(contentsOf: directory.appendingPathComponent("access.log"), encoding: .utf8)) ?? ""
  }

  /// Stops nginx (SIGQUIT: a graceful stop) and removes its directory.
  public func stop() async {
    _ = await process.stop(signal: SIGQUIT, gracePeriod: .seconds(5))
    try? FileManager.default.removeItem(at: directory)
  }
}
