import Foundation
import HybridAIProcess
import HybridAIServerTestSupport
import HybridAITestSupport
import Testing

/// Two `hybrid serve` processes sharing one PostgreSQL registry store and one data directory,
/// behind Debian's nginx running the project's example configuration (deploy/nginx/hybrid.conf):
/// what docs/deployment.md describes, checked end to end.
@Suite("two hybrid serve instances behind nginx, one PostgreSQL", .serialized)
struct TwoInstanceTests {
  static let adminToken = "two-instance-admin"
  static let admin = ["authorization": "Bearer \(adminToken)"]

  /// Starts `hybrid serve --registry-only` on `database` and `data`.
  static func instance(database: String, data: URL) async throws -> ServerProcess {
    try await ServerProcess(executable: HybridCommandTests.executable, arguments: [
      "--registry-only", "--data", data.path, "--registry-database", database, "--admin-token", adminToken,
      "--shutdown-timeout", "1",
    ])
  }

  static func url(_ base: URL, _ path: String) -> URL { URL(string: base.absoluteString + path)! }

  static func randomBytes(_ count: Int, seed: UInt64) -> Data {
    var state = seed &* 0x9E37_79B9_7F4A_7C15 | 1
    var bytes = [UInt8](repeating: 0, count: count)
    for index in bytes.indices {
      state ^= state << 13; state ^= state >> 7; state ^= state << 17
      bytes[index] = UInt8(truncatingIfNeeded: state)
    }
    return Data(bytes)
  }

  static func upload(_ bytes: Data, to model: String, through base: URL) async throws -> Int {
    let reply = try await TestHTTP.send(.POST, url(base, "/v1/admin/models/\(model)/versions"),
                                        headers: admin.merging(["content-type": "application/octet-stream"]) { $1 }, body: bytes)
    #expect(reply.status == 201, "\(reply.text)")
    return Int(try reply.json["version"] as? String ?? "") ?? -1
  }

  static func sha256(_ data: Data) async throws -> String {
    String(try await ChildProcess(executable: "/usr/bin/sha256sum", standardInput: data)
      .run(output: .collected(limit: 1 << 16)).standardOutput.prefix(64))
  }

  /// Two instances on `database` and one fresh data directory, behind nginx.
  struct Deployment {
    let first: ServerProcess
    let second: ServerProcess
    let nginx: TestNginx
    let data: TemporaryDirectory

    static func start(database: String, clientRate: String? = nil) async throws -> Deployment {
      let data = try TemporaryDirectory("two-instances")
      let first = try await TwoInstanceTests.instance(database: database, data: data.url)
      let second: ServerProcess
      do {
        second = try await TwoInstanceTests.instance(database: database, data: data.url)
      } catch {
        first.terminate()
        data.remove()
        throw error
      }
      do {
        let nginx = try await TestNginx.start(upstreamPorts: [first.baseURL.port!, second.baseURL.port!], clientRate: clientRate)
        return Deployment(first: first, second: second, nginx: nginx, data: data)
      } catch {
        first.terminate()
        second.terminate()
        data.remove()
        throw error
      }
    }

    /// Stops what is still running and removes the instances' data (for the end of a test,
    /// whatever happened).
    func tearDown() {
      first.terminate()
      second.terminate()
      let (nginx, data) = (self.nginx, self.data)
      Task {
        await nginx.stop()
        data.remove()
      }
    }
  }

  @Test("deploy through one, publish through the other, download through nginx; concurrent publishes from both stay consistent; a roll-out gives a device the same version from either")
  func sharedRegistry() async throws {
    let postgres = try await TemporaryPostgres.shared()
    let deployment = try await Deployment.start(database: postgres.url(database: try await postgres.createDatabase("two")))
    defer { deployment.tearDown() }
    let (first, second, nginx) = (deployment.first, deployment.second, deployment.nginx)

    #expect(try await TestHTTP.send(.POST, Self.url(first.baseURL, "/v1/admin/models"), headers: Self.admin,
                                    json: ["name": "selfie"]).status == 201)
    let model = Self.randomBytes(3 << 20, seed: 1)
    #expect(try await Self.upload(model, to: "selfie", through: first.baseURL) == 1)
    let published = try await TestHTTP.send(.POST, Self.url(second.baseURL, "/v1/admin/models/selfie/versions/1:publish"), headers: Self.admin)
    #expect(published.status == 200, "the second instance sees the first one's version at once: \(published.text)")
    let info = try await TestHTTP.send(.GET, Self.url(nginx.baseURL, "/v1/models/selfie:download"))
    #expect(info.status == 200, "\(info.text)")
    let uri = try #require(try info.json["downloadUri"] as? String)
    #expect(uri.hasPrefix(nginx.baseURL.absoluteString), "download URLs point at the proxy: \(uri)")
    let blob = try await TestHTTP.send(.GET, try #require(URL(string: uri)))
    #expect(blob.status == 200 && blob.body == model, "a URL signed by one instance is honoured by either (one signing key)")

    // Uploads and publishes from both instances at once: one number each, none lost.
    let numbers = try await withThrowingTaskGroup(of: Int.self) { group in
      for index in 0..<8 {
        let base = index.isMultiple(of: 2) ? first.baseURL : second.baseURL
        group.addTask { try await Self.upload(Self.randomBytes(64 << 10, seed: UInt64(100 + index)), to: "selfie", through: base) }
      }
      return try await group.reduce(into: [Int]()) { $0.append($1) }
    }
    #expect(numbers.sorted() == Array(2...9), "\(numbers.sorted())")
    try await withThrowingTaskGroup(of: Int.self) { group in
      for number in 2...9 {
        let base = number.isMultiple(of: 2) ? first.baseURL : second.baseURL
        group.addTask { try await TestHTTP.send(.POST, Self.url(base, "/v1/admin/models/selfie/versions/\(number):publish"), headers: Self.admin).status }
      }
      for try await status in group { #expect(status == 200) }
    }
    let listed = try await TestHTTP.send(.GET, Self.url(nginx.baseURL, "/v1/admin/models/selfie"), headers: Self.admin)
    let versions = try #require((try listed.json["versions"]) as? [[String: Any]])
    #expect(versions.count == 9 && versions.allSatisfy { $0["state"] as? String == "published" }, "\(listed.text)")

    // A/B: each installation gets the same version from either instance.
    let rollout = try await TestHTTP.send(.PUT, Self.url(second.baseURL, "/v1/admin/models/selfie/rollout"), headers: Self.admin,
                                          json: ["splits": [["version": "1", "percent": 50], ["version": "2", "percent": 50]]])
    #expect(rollout.status == 200, "\(rollout.text)")
    var seen = Set<String>()
    for device in 0..<24 {
      var answers: [String] = []
      for base in [first.baseURL, second.baseURL, nginx.baseURL] {
        let reply = try await TestHTTP.send(.GET, Self.url(base, "/v1/models/selfie:download"),
                                            headers: ["X-HybridAI-Installation-Id": "device-\(device)"])
        answers.append(try reply.json["version"] as? String ?? "?")
      }
      #expect(Set(answers).count == 1, "device-\(device): \(answers)")
      seen.formUnion(answers)
    }
    #expect(seen == ["1", "2"], "both variants are served: \(seen)")
    let stopped = [await first.stop().status, await second.stop().status]
    #expect(stopped == [0, 0])
  }

  @Test("one instance killed mid-download: the client resumes through nginx from the other and installs the exact file")
  func failoverMidDownload() async throws {
    let postgres = try await TemporaryPostgres.shared()
    // 4 MB/s to the client: a 24 MiB model takes about 6 s, long enough to kill its server part way.
    let deployment = try await Deployment.start(database: postgres.url(database: try await postgres.createDatabase("failover")),
                                                clientRate: "4m")
    defer { deployment.tearDown() }
    let (first, second, nginx, data) = (deployment.first, deployment.second, deployment.nginx, deployment.data)
    #expect(try await TestHTTP.send(.POST, Self.url(first.baseURL, "/v1/admin/models"), headers: Self.admin, json: ["name": "big"]).status == 201)
    let model = Self.randomBytes(24 << 20, seed: 7)
    #expect(try await Self.upload(model, to: "big", through: first.baseURL) == 1)
    #expect(try await TestHTTP.send(.POST, Self.url(first.baseURL, "/v1/admin/models/big/versions/1:publish"), headers: Self.admin).status == 200)

    let cache = data.url.appendingPathComponent("device-cache")
    let download = Task {
      try await ChildProcess.run(HybridCommandTests.executable, ["models", "get", "big", "--type", "latest", "--server",
                                                                 nginx.baseURL.absoluteString, "--dir", cache.path])
    }
    // Whichever instance streams the blob: kill it once it has sent a few MiB.
    var victim: ServerProcess?
    for _ in 0..<200 where victim == nil {
      try await Task.sleep(for: .milliseconds(50))
      for server in [first, second] where try await TestHTTP.metric("hybrid_download_bytes_total", at: server.baseURL) > Double(2 << 20) {
        victim = server
      }
    }
    let killed = try #require(victim, "no instance started sending the model")
    let survivor = killed === first ? second : first
    _ = await killed.stop(signal: SIGKILL)
    let outcome = try await download.value
    #expect(outcome.status == 0, "\(outcome.standardError)")
    let path = outcome.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)   // the installed file's path
    let installed = try Data(contentsOf: URL(fileURLWithPath: path))
    #expect(installed.count == model.count)
    let expected = try await Self.sha256(model)
    #expect(try await Self.sha256(installed) == expected, "the installed file is exactly the model")
    #expect(try await TestHTTP.metric("hybrid_download_resumes_total", at: survivor.baseURL) >= 1, "the survivor served a resumed range")
    #expect(await survivor.stop().status == 0)
  }

  @Test("PostgreSQL restarted mid-run: registry calls answer 503 UNAVAILABLE with Retry-After, registry-only instances are unready and one that generates stays ready (degraded), then recovery with nothing lost")
  func databaseRestart() async throws {
    let postgres = try await TemporaryPostgres.start()
    defer { Task { await postgres.remove() } }
    let name = try await postgres.createDatabase("restart")
    let deployment = try await Deployment.start(database: postgres.url(database: name) + "&operation_timeout=2&connect_timeout=1")
    defer { deployment.tearDown() }
    let (first, second, nginx) = (deployment.first, deployment.second, deployment.nginx)
    // A third instance also generates: it stays ready while the database is away.
    // Its key's limits are kept in the database: while it is away they are counted in the
    // instance, and no request is refused for it.
    let generating = try await ServerProcess(executable: HybridCommandTests.executable, arguments: [
      "--model", "smollm2=\(ModelLocatorPath.path)", "--data", deployment.data.url.path,
      "--registry-database", postgres.url(database: name) + "&operation_timeout=2&connect_timeout=1",
      "--admin-token", Self.adminToken, "--shutdown-timeout", "1", "--api-key", "app-key", "--requests-per-minute", "100",
    ])
    defer { generating.terminate() }
    #expect(try await TestHTTP.send(.POST, Self.url(nginx.baseURL, "/v1/admin/models"), headers: Self.admin, json: ["name": "kept"]).status == 201)
    #expect(try await Self.upload(Self.randomBytes(100_000, seed: 3), to: "kept", through: nginx.baseURL) == 1)

    #expect(try await TestHTTP.metric("hybrid_api_key_limits_shared", at: generating.baseURL) == 1)
    try await postgres.stopServer()
    let during = try await TestHTTP.send(.GET, Self.url(nginx.baseURL, "/v1/admin/models/kept"), headers: Self.admin)
    #expect(during.status == 503 && during.errorStatus == "UNAVAILABLE" && during.header("retry-after") != nil, "\(during.text)")
    // A registry-only instance is not ready; the reason is the refusal itself (said at once, not
    // after the 2 s operation timeout).
    let readiness = try await TestHTTP.send(.GET, Self.url(first.baseURL, "/readyz"))
    let problem = (try readiness.json["problems"] as? [String: String])?["registry"] ?? ""
    #expect(readiness.status == 503 && problem.contains("cannot be reached") && problem.contains("cannot connect to PostgreSQL"),
            "\(readiness.text)")
    let degraded = try await TestHTTP.send(.GET, Self.url(generating.baseURL, "/readyz"))
    let degradedParts = try degraded.json["degraded"] as? [String: String]
    #expect(degraded.status == 200 && degradedParts?["registry"] != nil, "\(degraded.text)")
    let answer = try await TestHTTP.send(.POST, Self.url(generating.baseURL, "/v1beta/models/smollm2:generateContent"),
                                         headers: ["x-goog-api-key": "app-key"], json: [
      "contents": [["role": "user", "parts": [["text": "Hi"]]]], "generationConfig": ["maxOutputTokens": 3, "temperature": 0],
    ])
    #expect(answer.status == 200, "generation works without the registry: \(answer.text)")
    let limits = try await TestHTTP.send(.GET, Self.url(generating.baseURL, "/readyz"))
    let limitsProblem = (try limits.json["degraded"] as? [String: String])?["api key limits"] ?? ""
    #expect(limits.status == 200 && limitsProblem.contains("each instance limits keys by itself"),
            "the key's limits are counted per instance now, and readyz says so: \(limits.text)")
    let metrics = try await TestHTTP.send(.GET, Self.url(generating.baseURL, "/metrics")).text
    #expect(metrics.contains("\nhybrid_api_key_limits_shared 0"), "and /metrics: \(metrics.suffix(400))")

    try await postgres.startServer()
    // Until the instances have reconnected, nginx sees 503s; after two in 5 s it marks both
    // upstreams down and answers 502 itself for 5 s. Under a full suite's load reconnecting can
    // take tens of seconds, so the wait is a deadline, not a count of tries.
    var after: TestHTTP.Reply?
    let deadline = ContinuousClock.now + .seconds(90)
    while ContinuousClock.now < deadline {
      after = try await TestHTTP.send(.GET, Self.url(nginx.baseURL, "/v1/admin/models/kept"), headers: Self.admin)
      if after?.status == 200 { break }
      try await Task.sleep(for: .milliseconds(200))
    }
    let versions = after?.status == 200 ? (try after?.json["versions"]) as? [[String: Any]] : nil
    #expect(after?.status == 200 && versions?.count == 1, "recovered with nothing lost: \(after?.text ?? "")")
    // Each instance reconnects on its own: the second is ready again (its registry answers) soon after.
    var ready = false
    while !ready, ContinuousClock.now < deadline {
      ready = try await TestHTTP.send(.GET, Self.url(second.baseURL, "/readyz")).status == 200
      if !ready { try await Task.sleep(for: .milliseconds(200)) }
    }
    #expect(ready, "the second instance is ready again")
    #expect(try await Self.upload(Self.randomBytes(1000, seed: 4), to: "kept", through: second.baseURL) == 2)
    let stopped = [await first.stop().status, await second.stop().status, await generating.stop().status]
    #expect(stopped == [0, 0, 0])
  }

  @Test("an API key's limits hold across two instances on one database: requests and tokens counted by one are refused by the other")
  func sharedKeyLimits() async throws {
    let postgres = try await TemporaryPostgres.shared()
    // A loaded machine may take more than the 1 s default to open a pool's first connection, and
    // the instance would then count by itself (the fallback is databaseRestart's subject).
    let database = postgres.url(database: try await postgres.createDatabase("limits")) + "&rate_limit_timeout=60"
    let data = try TemporaryDirectory("two-instances-limits")
    defer { data.remove() }
    let arguments = [
      "--model", "smollm2=\(ModelLocatorPath.path)", "--data", data.url.path, "--registry-database", database, "--no-chat",
      "--api-key", "requests-key", "--api-key", "tokens-key", "--requests-per-minute", "4", "--tokens-per-minute", "30",
      "--shutdown-timeout", "1",
    ]
    let first = try await ServerProcess(executable: HybridCommandTests.executable, arguments: arguments)
    defer { first.terminate() }
    let second = try await ServerProcess(executable: HybridCommandTests.executable, arguments: arguments)
    defer { second.terminate() }

    // 4 requests a minute (one back every 15 s), alternating between the instances: the fifth and
    // sixth are over the key's limit on either (counted per instance, each would let 4 in).
    var statuses: [Int] = []
    for index in 0..<6 {
      let base = index.isMultiple(of: 2) ? first.baseURL : second.baseURL
      statuses.append(try await TestHTTP.send(.GET, Self.url(base, "/v1beta/models"), headers: ["x-goog-api-key": "requests-key"]).status)
    }
    #expect(statuses == [200, 200, 200, 200, 429, 429], "\(statuses)")

    // 30 tokens a minute: an answer through the first instance spends more than that (its prompt
    // alone), so the second refuses the key's next request until the debt is paid.
    let prompt = "Tell me, in one short sentence, why the sky over the sea looks blue on a clear summer afternoon, please."
    let answer = try await TestHTTP.send(.POST, Self.url(first.baseURL, "/v1beta/models/smollm2:generateContent"),
                                         headers: ["x-goog-api-key": "tokens-key"], json: [
      "contents": [["role": "user", "parts": [["text": prompt]]]], "generationConfig": ["maxOutputTokens": 4, "temperature": 0],
    ])
    #expect(answer.status == 200, "\(answer.text)")
    let spent = (try answer.json["usageMetadata"] as? [String: Any])?["totalTokenCount"] as? Int ?? 0
    #expect(spent > 30, "the answer costs more than the minute's allowance: \(spent)")
    let refused = try await TestHTTP.send(.GET, Self.url(second.baseURL, "/v1beta/models"), headers: ["x-goog-api-key": "tokens-key"])
    #expect(refused.status == 429 && refused.errorMessage?.contains("30 tokens per minute") == true, "\(refused.text)")
    #expect(refused.header("retry-after").flatMap(Int.init).map { $0 >= 1 } == true, "\(refused.headers)")
    #expect([await first.stop().status, await second.stop().status] == [0, 0])
  }

  @Test("an unreachable PostgreSQL at start: a clear error naming host:port and exit 1; with --registry-database-wait, retries with backoff first")
  func unreachableAtStart() async throws {
    let (port, descriptor) = try Sockets.refusingPort()
    defer { Sockets.closeAll([descriptor]) }
    let data = try TemporaryDirectory("two-instances-unreachable")
    defer { data.remove() }
    let url = "postgres://hybrid:secret-password@127.0.0.1:\(port)/registry?sslmode=disable&connect_timeout=1"
    let started = ContinuousClock.now
    let refused = try await ChildProcess.run(HybridCommandTests.executable, [
      "serve", "--registry-only", "--port", "0", "--data", data.url.path, "--registry-database", url,
    ], mergingStandardError: true)
    #expect(refused.status == 1 && refused.standardOutput.contains("127.0.0.1:\(port)"), "\(refused.standardOutput)")
    #expect(!refused.standardOutput.contains("secret-password"), "the password is never printed")
    print("unreachable database: exit \(refused.status) after \(ContinuousClock.now - started)")

    let waited = try await ChildProcess.run(HybridCommandTests.executable, [
      "serve", "--registry-only", "--port", "0", "--data", data.url.path, "--registry-database", url, "--registry-database-wait", "2",
    ], mergingStandardError: true)
    #expect(waited.status == 1, "\(waited.standardOutput)")
    #expect(waited.standardOutput.components(separatedBy: "retrying in").count >= 3, "retried with backoff: \(waited.standardOutput)")
  }
}
