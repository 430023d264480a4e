import Foundation
import HybridAI
import HybridAIOnDevice
import HybridAIProcess
import HybridAIServerTestSupport
import HybridAITestSupport
import Testing

/// `hybrid serve` stopping under load, and the relocatable bundle `make test` builds before the
/// tests (`scripts/make-bundle --configuration debug --cpu native --swift-runtime shared --compression fast
/// --with-bench --output .build/test-bundle`).
@Suite("hybrid serve: stop under load; the relocatable bundle", .serialized)
struct ServeLifecycleTests {
  /// A `hybrid serve` child on a free port, its standard error kept.
  final class Server: Sendable {
    let child: RunningChildProcess
    let port: Int

    /// Starts `executable command --port 0 arguments` (with exactly `environment`, when given) and
    /// waits for its "listening on" line.
    init(executable: URL, command: [String] = ["serve"], arguments: [String], environment: [String: String]? = nil) async throws {
      var process = ChildProcess(executable: executable, arguments: command + ["--port", "0"] + arguments)
      if let environment {
        process.environment = environment
        process.inheritsEnvironment = false
      }
      child = try await process.start(standardError: .collected)
      // A server that never says it listens (another host, a hang) is stopped after two minutes,
      // which ends its output, so the test fails instead of waiting for ever.
      let child = child
      let watchdog = Task {
        try await Task.sleep(for: .seconds(120))
        _ = await child.stop(signal: SIGKILL)
      }
      defer { watchdog.cancel() }
      guard let found = await child.firstLine(where: { line in
        line.range(of: "listening on http://127.0.0.1:").flatMap { Int(line[$0.upperBound...].prefix { $0.isNumber }) }
      }) else {
        let outcome = await child.stop()
        throw ServerDidNotStart(output: outcome.standardError)
      }
      port = found
    }

    /// `hybrid serve` on the test model (as `smollm2`) at debug level, its registry in `scratch`,
    /// with `arguments` besides.
    static func servingTheTestModel(in scratch: TemporaryDirectory, _ arguments: [String]) async throws -> Server {
      try await Server(executable: HybridCommandTests.executable, arguments: [
        "--model", "smollm2=\(ModelLocatorPath.path)", "--data", scratch.appending("registry").path, "--log-level", "debug",
      ] + arguments)
    }

    /// Sends `signal` and waits for the exit; returns the exit status and standard error.
    func stop(_ signal: Int32 = SIGTERM) async -> (status: Int32, stderr: String) {
      let outcome = await child.stop(signal: signal, gracePeriod: .seconds(60))
      return (outcome.wasSignalled ? 128 + outcome.status : outcome.status, outcome.standardError)
    }
  }

  struct ServerDidNotStart: Error { let output: String }

  /// Runs curl; its output goes to `file` as it arrives (standard output with -N is written per
  /// chunk; `-o FILE` is buffered to the end).
  static func curl(_ arguments: [String], into file: URL) -> Task<Int32, any Error> {
    Task {
      try await ChildProcess(executable: "/usr/bin/curl", arguments: ["-sN"] + arguments).run(output: .file(file)).status
    }
  }

  static func streamRequest(port: Int, prompt: String) -> [String] {
    let body = #"{"contents":[{"role":"user","parts":[{"text":"\#(prompt)"}]}],"generationConfig":{"maxOutputTokens":3000,"temperature":0}}"#
    return ["-X", "POST", "-H", "Content-Type: application/json", "-d", body,
            "http://127.0.0.1:\(port)/v1beta/models/smollm2:streamGenerateContent?alt=sse"]
  }

  /// The same through the OpenAI-compatible endpoint.
  static func openAIStreamRequest(port: Int, prompt: String) -> [String] {
    let body = #"{"model":"smollm2","messages":[{"role":"user","content":"\#(prompt)"}],"stream":true,"max_tokens":3000,"temperature":0}"#
    return ["-X", "POST", "-H", "Content-Type: application/json", "-d", body,
            "http://127.0.0.1:\(port)/v1beta/openai/chat/completions"]
  }

  @Test("SIGTERM during uploads: one still arriving finishes and is recorded; one stalled past the grace period is cancelled, nothing of it staged or recorded; exit 0")
  func uploadsOnStop() async throws {
    let data = FileManager.default.temporaryDirectory.appendingPathComponent("serve-upload-stop-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: data) }
    // Uploads get shutdown-timeout + 5 s after SIGTERM. The rest of the arriving upload is sent
    // 0.5 s after it, but a machine saturated by the rest of the suite has stretched its sending
    // and hashing past 9 s, and past 20 s on a slower one (the server then cut it: EPIPE here),
    // so 30 + 5 s; the stalled upload is cut only then, which this test waits for (idle time, not
    // CPU). The idle timeout is out of the way: on such a machine the arriving upload's pause
    // between its halves (the wait until both uploads are in flight, then the stop) can be long.
    let arguments = ["--registry-only", "--data", data.path, "--admin-token", "t", "--shutdown-timeout", "30",
                     "--idle-timeout", "900"]
    let server = try await Server(executable: HybridCommandTests.executable, arguments: arguments)
    let admin = ["authorization": "Bearer t"]
    let created = try await TestHTTP.send(.POST, URL(string: "http://127.0.0.1:\(server.port)/v1/admin/models")!, headers: admin,
                                          json: ["name": "m"])
    #expect(created.status == 201, "\(created.text)")
    let size = 2 << 20
    let finishing = Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
    let uploadHead = ["Authorization": "Bearer t", "Content-Type": "application/octet-stream", "Content-Length": "\(size)"]
    let arriving = try RawHTTPConnection(port: server.port)
    try arriving.sendHead("POST", "/v1/admin/models/m/versions", headers: uploadHead)
    try arriving.send(finishing.prefix(size / 2))
    let stalled = try RawHTTPConnection(port: server.port)
    try stalled.sendHead("POST", "/v1/admin/models/m/versions", headers: uploadHead)
    try stalled.send(Data(repeating: 1, count: size / 4))
    // SIGTERM only once the server is handling both uploads (a connection it has not read yet
    // would be closed as idle by the stop): two requests in flight besides this scrape.
    var inFlight = 0.0
    for _ in 0..<600 where inFlight < 3 {
      inFlight = try await Self.activeRequests(port: server.port)
      if inFlight < 3 { try await Task.sleep(for: .milliseconds(50)) }
    }
    #expect(inFlight >= 3, "both uploads are in flight before the stop")

    server.child.send(signal: SIGTERM)
    try await Task.sleep(for: .milliseconds(500))
    try arriving.send(finishing.suffix(size / 2))
    let finished = await arriving.readResponse()
    #expect(finished.status == 201, "the upload that kept arriving is recorded: \(finished.text.prefix(300))")
    let cut = await stalled.readResponse(timeout: .seconds(90))
    #expect(cut.status != 201, "the stalled upload is not recorded: \(cut.text.prefix(300))")
    let outcome = await server.child.waitForExit()
    #expect(outcome.status == 0 && !outcome.wasSignalled, "\(outcome.standardError.suffix(2000))")

    let staging = try FileManager.default.contentsOfDirectory(atPath: data.appendingPathComponent("blobs/sha256").path)
      .filter { $0.hasPrefix(".part") }
    #expect(staging.isEmpty, "nothing half-written is left: \(staging)")
    let restarted = try await Server(executable: HybridCommandTests.executable, arguments: arguments)
    let model = try await TestHTTP.send(.GET, URL(string: "http://127.0.0.1:\(restarted.port)/v1/admin/models/m")!, headers: admin)
    let versions = try #require((try model.json["versions"]) as? [[String: Any]], "\(model.text)")
    #expect(versions.count == 1, "\(model.text)")
    let digest = try await ChildProcess(executable: "/usr/bin/sha256sum", arguments: [], standardInput: finishing)
      .run(output: .collected(limit: 1 << 16)).standardOutput.prefix(64)
    #expect(versions.first?["sha256"] as? String == String(digest))
    _ = await restarted.stop()
  }

  @Test("--batch-contexts 2: the start line says so, warns that on the CPU it only costs; two requests at once each answer; SIGTERM exits 0 with both contexts closed")
  func twoContexts() async throws {
    let scratch = try TemporaryDirectory("serve-contexts")
    defer { scratch.remove() }
    let server = try await Server.servingTheTestModel(in: scratch, [
      "--no-chat", "--max-concurrent-requests", "2", "--batch-contexts", "2"])
    let body = #"{"contents":[{"role":"user","parts":[{"text":"Name a color."}]}],"generationConfig":{"maxOutputTokens":8,"temperature":0}}"#
    let url = URL(string: "http://127.0.0.1:\(server.port)/v1beta/models/smollm2:generateContent")!
    let answers = try await withThrowingTaskGroup(of: TestHTTP.Reply.self) { group in
      for _ in 0..<2 { group.addTask { try await TestHTTP.send(.POST, url, headers: ["content-type": "application/json"], body: Data(body.utf8)) } }
      return try await group.reduce(into: []) { $0.append($1) }
    }
    #expect(answers.allSatisfy { $0.status == 200 && $0.text.contains("candidatesTokenCount") }, "\(answers.map(\.text))")
    let (status, stderr) = await server.stop(SIGTERM)
    #expect(status == 0, "\(stderr.suffix(2000))")
    #expect(stderr.contains("31 layers (no GPU backend is loaded), 2 contexts"), "\(stderr.prefix(2000))")
    #expect(stderr.contains("warning: model smollm2 runs on the CPU, where 2 contexts only add passes over the weights"))
    #expect(stderr.components(separatedBy: "batch scheduler closed").count - 1 == 2, "both contexts closed")
    #expect(stderr.contains("context=1"), "the second context served a request")
  }

  /// Requests the server is handling now (`hybrid_http_active_requests`, this scrape included).
  static func activeRequests(port: Int) async throws -> Double {
    try await TestHTTP.metric("hybrid_http_active_requests", at: URL(string: "http://127.0.0.1:\(port)")!)
  }

  @Test("SIGTERM under load: every open stream (Gemini and OpenAI) ends with a final UNAVAILABLE event, llama.cpp is freed in order (contexts, weights, backend) before 'stopped', exit 0")
  func stopUnderLoad() async throws {
    let scratch = try TemporaryDirectory("serve-stop")
    defer { scratch.remove() }
    let server = try await Server.servingTheTestModel(in: scratch, ["--shutdown-timeout", "0", "--max-concurrent-requests", "2"])
    let outputs = (0..<3).map { scratch.appending("stream-\($0).txt") }
    let prompts = ["Write a long story about a dragon.", "Write a long story about a knight.", "List every country you know."]
    // Both APIs: the second request is an OpenAI chat completion.
    let requests = prompts.enumerated().map { index, prompt in
      index == 1 ? Self.openAIStreamRequest(port: server.port, prompt: prompt) : Self.streamRequest(port: server.port, prompt: prompt)
    }
    let streams = zip(outputs, requests).map { Self.curl($1, into: $0) }
    // Wait until two of them stream (whichever the server admitted; the third waits for a free
    // sequence) and the server holds all three (a loaded machine can start a curl late, and one
    // that connects after the signal finds the port closed); the answers take about a minute
    // here, so the signal comes mid-stream.
    let started = ContinuousClock.now
    while ContinuousClock.now - started < .seconds(90) {
      let streaming = outputs.filter { !((try? Data(contentsOf: $0)) ?? Data()).isEmpty }.count
      if streaming >= 2, try await Self.activeRequests(port: server.port) >= 4 { break }   // 3 + this scrape
      try await Task.sleep(for: .milliseconds(50))
    }
    let (status, stderr) = await server.stop(SIGTERM)
    for stream in streams { _ = try await stream.value }

    #expect(status == 0, "\(stderr.suffix(2000))")
    #expect(stderr.contains("Gemini API at http://127.0.0.1:\(server.port)/v1beta, OpenAI API at http://127.0.0.1:\(server.port)/v1 (also /v1beta/openai)"),
            "the start names the base URLs: \(stderr.prefix(1500))")
    // The two decoding streams end with an UNAVAILABLE event (Google's `"status":"UNAVAILABLE"`,
    // OpenAI's `"code":"unavailable"`); the waiting request, which had no answer yet, gets the
    // same error as its HTTP response.
    for output in outputs {
      let body = String(decoding: (try? Data(contentsOf: output)) ?? Data(), as: UTF8.self)
      let events = body.components(separatedBy: "\r\n\r\n").filter { $0.hasPrefix("data: ") }
      let last = events.last ?? body
      #expect(last.lowercased().contains(#""unavailable""#) && last.contains("shutting down"),
              "\(output.lastPathComponent): \(last.prefix(300))\n— the server's log:\n\(stderr.suffix(3000))")
    }
    let order = ["batch scheduler closed", "freed model weights", "llama.cpp backend freed", "hybrid serve: stopped"]
    let positions = order.map { stderr.range(of: $0)?.lowerBound }
    #expect(!positions.contains(nil), "missing teardown lines: \(zip(order, positions).filter { $1 == nil }.map(\.0))")
    let found = positions.compactMap { $0 }
    #expect(found == found.sorted(), "teardown out of order")
    #expect(!stderr.contains("after the runtime was shut down"), "a llama.cpp call after teardown")
  }

  @Test("hybrid generate frees its llama.cpp context, the weights and the backend, in that order, before it exits")
  func generateTearsDownInOrder() async throws {
    let run = try await HybridCommandTests().run([
      "generate", "--prompt", "Hi", "--mode", "on-device", "--greedy", "--max-tokens", "4", "--log-level", "debug"])
    #expect(run.status == 0, "\(run.stderr.suffix(1500))")
    let order = ["freed llama context", "freed model weights", "llama.cpp backend freed"]
    let positions = order.map { run.stderr.range(of: $0)?.lowerBound }
    #expect(!positions.contains(nil), "missing teardown lines: \(zip(order, positions).filter { $1 == nil }.map(\.0))")
    let found = positions.compactMap { $0 }
    #expect(found == found.sorted(), "teardown out of order")
    #expect(!run.stderr.contains("after the runtime was shut down"))
  }

  @Test("the bundle: bin/hybrid finds llama.cpp, LiteRT and the Swift runtime in ../lib, serves a request and its OpenAPI document with no Swift on the library path, and runs hybrid-bench")
  func relocatableBundle() async throws {
    let bundles = TestRepository.root.appendingPathComponent(".build/test-bundle")
    let tarball = try #require((try? FileManager.default.contentsOfDirectory(atPath: bundles.path))?
      .first { $0.hasPrefix("hybrid-") && $0.hasSuffix(".tar.gz") }, "make test builds .build/test-bundle first (scripts/make-bundle)")
    let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("bundle-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: scratch) }
    let untar = try await ChildProcess.run(URL(fileURLWithPath: "/bin/tar"),
                                           ["-xzf", bundles.appendingPathComponent(tarball).path, "-C", scratch.path])
    #expect(untar.status == 0)
    let root = scratch.appendingPathComponent(String(tarball.dropLast(".tar.gz".count)))
    let executable = root.appendingPathComponent("bin/hybrid")

    // Every library outside the system's comes from the bundle's lib/ ($ORIGIN/../lib): llama.cpp,
    // and the Swift runtime (this quick bundle ships it as shared libraries; `make bundle` links it in).
    let ldd = try await ChildProcess.run(URL(fileURLWithPath: "/usr/bin/ldd"), [executable.path])
    let bundled = root.path + "/bin/../lib/"
    #expect(ldd.output.contains(bundled + "libllama.so"), "\(ldd.output)")
    for line in ldd.output.split(separator: "\n") where line.contains("libswift") || line.contains("libFoundation") {
      #expect(line.contains(bundled), "\(line) is not the bundle's")
    }
    #expect(!ldd.output.contains("not found"), "\(ldd.output)")

    // No Swift toolchain, no checkout: a bare environment, the model copied beside the bundle.
    let model = scratch.appendingPathComponent("model.gguf")
    try FileManager.default.copyItem(atPath: ModelLocatorPath.path, toPath: model.path)
    let bare = ["PATH": "/usr/bin:/bin", "HOME": scratch.path]
    let server = try await Server(executable: executable, arguments: [
      "--model", "smollm2=\(model.path)", "--data", scratch.appendingPathComponent("registry").path], environment: bare)
    let openAPI = scratch.appendingPathComponent("openapi.yaml"), answer = scratch.appendingPathComponent("answer.json")
    _ = try await Self.curl(["-f", "http://127.0.0.1:\(server.port)/v1/openapi.yaml"], into: openAPI).value
    _ = try await Self.curl(["-f", "-X", "POST", "-H", "Content-Type: application/json", "-d",
                             #"{"contents":[{"role":"user","parts":[{"text":"Hi"}]}],"generationConfig":{"maxOutputTokens":4,"temperature":0}}"#,
                             "http://127.0.0.1:\(server.port)/v1beta/models/smollm2:generateContent"], into: answer).value
    let (status, stderr) = await server.stop()
    #expect(status == 0, "\(stderr.suffix(1500))")
    #expect(String(decoding: (try? Data(contentsOf: openAPI)) ?? Data(), as: UTF8.self).hasPrefix("openapi:"))
    let reply = try JSONSerialization.jsonObject(with: Data(contentsOf: answer)) as? [String: Any]
    #expect((reply?["candidates"] as? [[String: Any]])?.isEmpty == false, "\(String(describing: reply))")
    #expect(stderr.contains("on CPU: 31 layers"), "the start line names where the model runs")

    // hybrid tflite loads the bundle's LiteRT (lib/libLiteRt.so), and hybrid bench the hybrid-bench beside it.
    let tflite = try await ChildProcess.run(executable, ["tflite", "inspect", TestRepository.model("tflite/okay_nabu.tflite").path, "--json"],
                                            environment: bare)
    let inspected = try JSONSerialization.jsonObject(with: Data(tflite.output.utf8)) as? [String: Any]
    #expect(inspected?["runtime"] as? String == root.appendingPathComponent("lib/libLiteRt.so").path, "\(tflite.output)")
    let bench = try await ChildProcess.run(executable, ["bench", "--help"], mergingStandardError: true, environment: bare)
    #expect(bench.status == 0 && bench.output.contains("USAGE"), "\(bench.output)")

    // One version everywhere: the tarball's name, share/hybridai/VERSION and `hybrid --version`; the licence
    // of everything in lib/ beside HybridAI's own LICENSE and NOTICE.
    #expect(tarball.hasPrefix("hybrid-\(HybridAIVersion.current)-linux-"), "\(tarball)")
    let version = try await ChildProcess.run(executable, ["--version"], environment: bare)
    #expect(version.output.trimmingCharacters(in: .whitespacesAndNewlines) == HybridAIVersion.current, "\(version.output)")
    let versionFile = try String(contentsOf: root.appendingPathComponent("share/hybridai/VERSION"), encoding: .utf8)
    #expect(versionFile.hasPrefix(HybridAIVersion.current + " ("), "\(versionFile)")
    let licences = root.appendingPathComponent("share/hybridai/licenses")
    let licenceFiles = Set((try? FileManager.default.contentsOfDirectory(atPath: licences.path)) ?? [])
    for expected in ["llama.cpp-and-ggml.txt", "litert.txt", "libpng.txt", "libjpeg-turbo.txt", "sqlite.txt", "libgomp.txt",
                     "swift-runtime.txt", "swift-package-swift-nio.txt", "swift-package-GRDB.swift.txt"] {
      #expect(licenceFiles.contains(expected), "share/hybridai/licenses lacks \(expected): \(licenceFiles.sorted())")
    }
    let registryLinks = try await ChildProcess.run(URL(fileURLWithPath: "/usr/bin/ldd"), [root.appendingPathComponent("bin/hybrid-registry").path])
    #expect(!registryLinks.output.contains("libllama") && !registryLinks.output.contains("not found"), "\(registryLinks.output)")
    for file in ["LICENSE", "NOTICE"] {
      #expect(FileManager.default.fileExists(atPath: root.appendingPathComponent(file).path), "the bundle lacks \(file)")
    }

    let devices = try await ChildProcess.run(executable, ["devices", "--json", "--model", model.path])
    let report = try JSONSerialization.jsonObject(with: Data(devices.output.utf8)) as? [String: Any]
    let cpuBackend = (report?["backends"] as? [String: String])?["cpu"]
    #expect(cpuBackend?.hasPrefix(root.appendingPathComponent("lib").path) == true, "\(devices.output)")
  }
}
