import AsyncHTTPClient
import Foundation
import HybridAI
import HybridAIRegistry
import HybridAIServer
import HybridAIServerTestSupport
import HybridAIServing
import HybridAITestSupport
import NIOCore
import Testing

/// API keys from a key file (`hybrid keys create`): stored hashed, scopes per route family, a new
/// key working at once and a revoked one refused from its next request, per-key request and token
/// limits — over a real socket, with the registry and the Gemini API on one server.
@Suite("API keys: the key file, scopes, revocation, token limits")
struct APIKeyScopeTests {
  /// A server with the registry and the Gemini API, its keys in `file`.
  struct KeyedServer {
    let server: RunningServer
    let file: APIKeyFile
    let directory: TemporaryDirectory

    /// `now`: the limits' clock (a fixed one makes a burst's outcome exact however slowly it is served).
    static func start(model: ScriptedLanguageModel = ScriptedLanguageModel(), requestsPerMinute: Int? = nil,
                      tokensPerMinute: Int? = nil, promptTokens: Int = 1,
                      now: @escaping @Sendable () -> ContinuousClock.Instant = { .now }) async throws -> KeyedServer {
      let directory = try TemporaryDirectory("hybrid-keys")
      let file = APIKeyFile(url: directory.url.appending(path: "api-keys.json"))
      _ = try file.create(name: "bootstrap", scopes: [.generate])   // keys are required once the file exists
      let registry = try ModelRegistry(configuration: RegistryConfiguration(dataDirectory: directory.url.appending(path: "registry")),
                                       logger: TestLogging.logger("registry"))
      let served = ServedModel(name: "m", model: model, inputTokenLimit: 100, outputTokenLimit: 100) { _ in promptTokens }
      let keys = APIKeyAuthority(keyFile: file, requestsPerMinute: requestsPerMinute, tokensPerMinute: tokensPerMinute,
                                 now: now, logger: TestLogging.logger("keys"))
      let server = try await RunningServer.start([RegistryAPI(registry: registry), GeminiCompatibleAPI(models: [served])],
                                                 configuration: ServerConfiguration(keys: keys))
      return KeyedServer(server: server, file: file, directory: directory)
    }

    func url(_ path: String) -> URL { URL(string: server.baseURL.absoluteString + path)! }

    /// Stops the server, then removes its directory.
    func stop() async {
      await server.stop()
      directory.remove()
    }

    func generate(key: String?, stream: Bool = false) async throws -> TestHTTP.Reply {
      let path = stream ? "/v1beta/models/m:streamGenerateContent?alt=sse" : "/v1beta/models/m:generateContent"
      return try await TestHTTP.send(.POST, url(path), headers: key.map { ["x-goog-api-key": $0] } ?? [:],
                                     json: ["contents": [["role": "user", "parts": [["text": "Hi"]]]]])
    }
  }

  @Test("the key file keeps only hashes (mode 0600); list, revoke by id or name, typed errors; concurrent creates lose nothing")
  func keyFile() async throws {
    let directory = try TemporaryDirectory("hybrid-keyfile")
    defer { directory.remove() }
    let file = APIKeyFile(url: directory.url.appending(path: "keys/api-keys.json"))
    #expect(try file.records().isEmpty, "no file: no keys")
    let (record, key) = try file.create(name: "ios-app", scopes: [.generate, .registryRead], tokensPerMinute: 500)
    #expect(key.hasPrefix("hai_\(record.id)_") && key.count == 4 + 8 + 1 + 43, "\(key)")
    #expect(APIKeyFile.identifier(inKey: key) == record.id)
    let stored = try String(contentsOf: file.url, encoding: .utf8)
    #expect(!stored.contains(key) && !stored.contains(String(key.suffix(43))), "the key itself is never stored")
    #expect(stored.contains(APIKeyFile.digestHex(of: key)))
    let mode = try FileManager.default.attributesOfItem(atPath: file.url.path)[.posixPermissions] as? Int
    #expect(mode == 0o600)

    // Many processes' worth of creates at once: each lands (the lock), none is lost.
    try await withThrowingTaskGroup(of: Void.self) { group in
      for index in 0..<12 { group.addTask { _ = try file.create(name: "worker-\(index)", scopes: [.generate]) } }
      try await group.waitForAll()
    }
    let records = try file.records()
    #expect(records.count == 13 && Set(records.map(\.id)).count == 13)

    #expect(try file.revoke(id: "ios-app").revoked != nil, "by name")
    let revokedAgain = try file.revoke(id: record.id)
    #expect(revokedAgain.revoked == (try file.records().first { $0.id == record.id })?.revoked, "the first date stays")
    #expect(throws: APIKeyFileError.unknownKey("nope")) { try file.revoke(id: "nope") }
    _ = try file.create(name: "twin", scopes: [.generate])
    _ = try file.create(name: "twin", scopes: [.generate])
    #expect(throws: APIKeyFileError.ambiguousName("twin")) { try file.revoke(id: "twin") }
    #expect(throws: APIKeyFileError.noScopes) { try file.create(name: "none", scopes: []) }
    #expect(throws: APIKeyFileError.invalidName("two\nlines")) { try file.create(name: "two\nlines", scopes: [.generate]) }

    try Data("{ not json".utf8).write(to: file.url)
    #expect { try file.records() } throws: { error in
      guard case APIKeyFileError.corrupt(let path, _) = error else { return false }
      return path == file.url.path
    }
  }

  @Test("each scope opens its routes only: generate, registry-read, registry-admin; a missing or unknown key is refused")
  func scopes() async throws {
    let keyed = try await KeyedServer.start()
    defer { Task { await keyed.stop() } }
    let (_, generator) = try keyed.file.create(name: "generator", scopes: [.generate])
    let (_, reader) = try keyed.file.create(name: "reader", scopes: [.registryRead])
    let (_, admin) = try keyed.file.create(name: "admin", scopes: [.registryAdmin])

    #expect(try await keyed.generate(key: generator).status == 200, "a key created while the server runs works at once")
    let wrongScope = try await keyed.generate(key: reader)
    #expect(wrongScope.status == 403 && wrongScope.errorStatus == "PERMISSION_DENIED", "\(wrongScope.text)")
    #expect(wrongScope.errorMessage?.contains("generate scope") == true)
    #expect(try await keyed.generate(key: nil).status == 403)
    let unknown = try await keyed.generate(key: "hai_00000000_" + String(repeating: "x", count: 43))
    #expect(unknown.status == 400 && unknown.text.contains("API_KEY_INVALID"))

    // The registry: download info needs registry-read, the admin API registry-admin (as a bearer token).
    let download = keyed.url("/v1/models/selfie:download")
    #expect(try await TestHTTP.send(.GET, download, headers: ["x-goog-api-key": reader]).status == 404, "let in; no such model")
    #expect(try await TestHTTP.send(.GET, download, headers: ["x-goog-api-key": generator]).status == 403)
    let create = try await TestHTTP.send(.POST, keyed.url("/v1/admin/models"), headers: ["authorization": "Bearer \(admin)"],
                                         json: ["name": "selfie", "description": "a test"])
    #expect((200..<300).contains(create.status), "\(create.text)")
    let notAdmin = try await TestHTTP.send(.GET, keyed.url("/v1/admin/models"), headers: ["authorization": "Bearer \(reader)"])
    #expect(notAdmin.status == 403 && notAdmin.text.contains("registry-admin"), "\(notAdmin.text)")
    let noCredential = try await TestHTTP.send(.GET, keyed.url("/v1/admin/models"))
    #expect(noCredential.status == 401)
  }

  @Test("hybrid keys run as root keeps the key file the server's user's (owner, group, mode), a new file its folder's owner's",
        .enabled(if: getuid() == 0, "changing a file's owner needs root"))
  func ownerKept() throws {
    let directory = try TemporaryDirectory("hybrid-keyowner")
    defer { directory.remove() }
    let service: uid_t = 65534   // nobody: the server's user (systemd's DynamicUser is another uid like it)
    #expect(chown(directory.url.path, service, gid_t(service)) == 0)
    let file = APIKeyFile(url: directory.url.appending(path: "api-keys.json"))
    let (record, _) = try file.create(name: "first", scopes: [.generate])
    func owner(_ path: String) -> (uid: uid_t, gid: gid_t, mode: mode_t) {
      var info = stat()
      _ = stat(path, &info)
      return (info.st_uid, info.st_gid, info.st_mode & 0o777)
    }
    #expect(owner(file.url.path).uid == service && owner(file.url.path).gid == gid_t(service) && owner(file.url.path).mode == 0o600)
    #expect(owner(file.url.path + ".lock").uid == service, "the lock too: the server's user can run hybrid keys later")
    #expect(chmod(file.url.path, 0o640) == 0)
    try file.revoke(id: record.id)
    #expect(owner(file.url.path).uid == service && owner(file.url.path).mode == 0o640, "a revocation by root leaves a file the server can read")
  }

  @Test("a key file the server cannot read keeps the keys read before, and says so through keyFileProblem (/readyz)")
  func unreadableKeyFile() async throws {
    let directory = try TemporaryDirectory("hybrid-keyproblem")
    defer { directory.remove() }
    let file = APIKeyFile(url: directory.url.appending(path: "api-keys.json"))
    let (_, key) = try file.create(name: "app", scopes: [.generate])
    let keys = APIKeyAuthority(keyFile: file, logger: TestLogging.logger("keys"))
    #expect(keys.keyFileProblem == nil)
    let good = try Data(contentsOf: file.url)
    try Data("{ half a file".utf8).write(to: file.url)
    #expect(keys.keyFileProblem?.contains("the keys read before stay in force") == true, "\(keys.keyFileProblem ?? "nil")")
    #expect(try await keys.authenticate(key, for: .generate) != nil)
    try good.write(to: file.url)
    #expect(keys.keyFileProblem == nil, "a good version clears it")
  }

  @Test("a key revoked mid-stream: the running answer finishes whole, the next request is refused; a deleted key file refuses every key")
  func revocation() async throws {
    let model = ScriptedLanguageModel(deltas: ["one ", "two ", "three ", "four"], delay: .milliseconds(150))
    let keyed = try await KeyedServer.start(model: model)
    defer { Task { await keyed.stop() } }
    let (record, key) = try keyed.file.create(name: "leaked", scopes: [.generate])
    let streaming = Task { try await keyed.generate(key: key, stream: true) }
    while model.recording.deltasSent == 0 { try await Task.sleep(for: .milliseconds(10)) }
    try keyed.file.revoke(id: record.id)
    let reply = try await streaming.value
    #expect(reply.status == 200)
    let text = try reply.events.compactMap { event in
      ((event["candidates"] as? [[String: Any]])?.first?["content"] as? [String: Any]).flatMap { $0["parts"] as? [[String: Any]] }?
        .compactMap { $0["text"] as? String }.joined()
    }.joined()
    #expect(text == "one two three four", "nothing of the running answer is lost: \(reply.text)")
    let next = try await keyed.generate(key: key)
    #expect(next.status == 400 && next.errorMessage?.contains("revoked") == true, "\(next.text)")

    let (_, other) = try keyed.file.create(name: "other", scopes: [.generate])
    #expect(try await keyed.generate(key: other).status == 200)
    try FileManager.default.removeItem(at: keyed.file.url)
    #expect(try await keyed.generate(key: other).status == 400, "the file is gone: its keys are refused, the server stays closed")
    #expect(try await keyed.generate(key: nil).status == 403)
  }

  @Test("tokens per minute: an answer's prompt and output tokens are charged to its key (unary and streamed); then 429 with Retry-After")
  func tokenLimit() async throws {
    let model = ScriptedLanguageModel(deltas: ["a", "b"], usage: Usage(promptTokens: 20, outputTokens: 15))
    let frozen = ContinuousClock.now   // no refill between the answers, however slowly a loaded machine serves them
    let keyed = try await KeyedServer.start(model: model, tokensPerMinute: 30, now: { frozen })
    defer { Task { await keyed.stop() } }
    let (_, unary) = try keyed.file.create(name: "unary", scopes: [.generate])
    let (_, streamed) = try keyed.file.create(name: "streamed", scopes: [.generate])
    let (_, generous) = try keyed.file.create(name: "generous", scopes: [.generate], tokensPerMinute: 10_000)

    #expect(try await keyed.generate(key: unary).status == 200, "30 tokens left: the first answer (35) goes through")
    let limited = try await keyed.generate(key: unary)
    #expect(limited.status == 429 && limited.errorStatus == "RESOURCE_EXHAUSTED", "\(limited.text)")
    #expect(limited.errorMessage?.contains("30 tokens per minute") == true)
    let retryAfter = try #require(limited.header("retry-after").flatMap(Int.init))
    #expect(retryAfter == 10, "5 tokens in debt at 30 a minute: 10 s, \(retryAfter)")

    #expect(try await keyed.generate(key: streamed, stream: true).status == 200)
    #expect(try await keyed.generate(key: streamed, stream: true).status == 429, "a streamed answer is charged too")
    for _ in 0..<3 { #expect(try await keyed.generate(key: generous).status == 200, "its own limit wins") }
  }

  @Test("a stream the client closes early is charged too: its prompt and the text it was sent")
  func closedStreamCharged() async throws {
    let model = ScriptedLanguageModel(deltas: Array(repeating: "word ", count: 200), delay: .milliseconds(20))
    let frozen = ContinuousClock.now
    let keyed = try await KeyedServer.start(model: model, tokensPerMinute: 30, promptTokens: 40, now: { frozen })
    defer { Task { await keyed.stop() } }
    let (_, key) = try keyed.file.create(name: "reader", scopes: [.generate])
    let reader = Task {
      var request = HTTPClientRequest(url: keyed.url("/v1beta/models/m:streamGenerateContent?alt=sse").absoluteString)
      request.method = .POST
      request.headers.add(name: "x-goog-api-key", value: key)
      request.body = .bytes(ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: ["contents": [["role": "user", "parts": [["text": "Hi"]]]]])))
      let response = try await TestHTTPClient.shared.execute(request, timeout: .seconds(60))
      for try await _ in response.body {}
    }
    while model.recording.deltasSent < 3 { try await Task.sleep(for: .milliseconds(5)) }
    reader.cancel()   // the client goes away before the answer's last event (where usage is)
    _ = await reader.result
    // The charge lands once the server has seen the stream closed and stopped the answer.
    let deadline = ContinuousClock.now + .seconds(30)
    while !model.recording.sawCancellation, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
    #expect(model.recording.sawCancellation)
    try await Task.sleep(for: .milliseconds(200))
    // Uncharged, 30 tokens would be left and this request let in (a request needs a positive balance).
    let next = try await keyed.generate(key: key)
    #expect(next.status == 429, "40 prompt tokens and some text against 30 a minute: \(next.text)")
  }

  @Test("a burst far over the request limit: exactly the allowance is answered, the rest get 429, the server stays up")
  func burst() async throws {
    let frozen = ContinuousClock.now   // no refill while the burst is served, however long that takes here
    let keyed = try await KeyedServer.start(requestsPerMinute: 10, now: { frozen })
    defer { Task { await keyed.stop() } }
    let (_, key) = try keyed.file.create(name: "burst", scopes: [.generate])
    let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
      for _ in 0..<120 {
        group.addTask { try await TestHTTP.send(.GET, keyed.url("/v1beta/models"), headers: ["x-goog-api-key": key]).status }
      }
      return try await group.reduce(into: [Int]()) { $0.append($1) }
    }
    #expect(statuses.count { $0 == 200 } == 10 && statuses.count { $0 == 429 } == 110, "\(Dictionary(grouping: statuses) { $0 }.mapValues(\.count))")
    #expect(try await TestHTTP.send(.GET, keyed.url("/healthz")).status == 200)
  }
}
