import ArgumentParser
import Foundation
import HybridAI
import HybridAIChatApp
import HybridAIOnDevice
import HybridAIRegistry
import HybridAIServer
import HybridAIServing
import HybridCommandLine

/// `hybrid serve` — a self-hosted Gemini-compatible cloud on local GGUF models, and a model registry.
struct ServeCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "serve",
    abstract: "Serve local GGUF models through a Gemini-compatible REST API (v1beta), and a model registry.",
    discussion: """
      Gemini endpoints: POST /v1beta/models/{model}:generateContent, :streamGenerateContent?alt=sse, \
      :countTokens; GET /v1beta/models, /v1beta/models/{model}. Concurrent requests are decoded \
      together in one llama.cpp batch.
      Model registry (docs/model-delivery.md): GET /v1/models/{name}:download, signed blob URLs, and \
      the admin API under /v1/admin (needs --admin-token); OpenAPI document at /v1/openapi.yaml.
      Web chat (docs/web-chat.md): the page at /, its sessions API under /v1/chat; conversations are       kept in --sessions-dir, where hybrid sessions list sees them.
      Stops gracefully on SIGINT or SIGTERM.
      Example: hybrid serve --port 8080 --model smollm2=.deps/models/SmolLM2-135M-Instruct.Q4_1.gguf --api-key secret --admin-token admin-secret
      """)

  @Option(name: .long, help: "Address to bind (default: loopback only).")
  var host = "127.0.0.1"

  @Option(name: .long, help: "TCP port; 0 picks a free one (printed on start).")
  var port = 8080

  @Option(name: .long, parsing: .singleValue,
          help: "A model to serve as NAME=PATH, or PATH (named after the file). Repeatable. Default: smollm2=<the bootstrap's SmolLM2>.")
  var model: [String] = []

  @Option(name: .long, parsing: .singleValue, help: ArgumentHelp(
    "Another name for a served model, as ALIAS=MODEL (e.g. gemini-2.5-flash=smollm2). Repeatable.",
    discussion: "Apps written for a Gemini model name then run unchanged against this server; answers report the served model's name as modelVersion."))
  var alias: [String] = []

  @Option(name: .long, parsing: .singleValue,
          help: "An API key clients must send (x-goog-api-key header or ?key=). Repeatable. Default: $HYBRIDAI_SERVER_API_KEY, else none required.")
  var apiKey: [String] = []

  @Option(name: .long, help: ArgumentHelp(
    "Requests per minute each API key may send (429 RESOURCE_EXHAUSTED with Retry-After above it).",
    discussion: "Needs --api-key. Each key may burst up to the limit; its allowance refills evenly over a minute."))
  var requestsPerMinute: Int?

  @Option(name: .long, help: "Requests decoded together per model; more wait in line.")
  var maxConcurrentRequests = 8

  @Option(name: .long, help: "Context window per request, in tokens.")
  var contextSize = 4096

  @Flag(name: .long, help: ArgumentHelp(
    "Clear a request's keys and values when it ends.",
    discussion: "By default a finished request's cache stays in its sequence, so a later request with the same prompt prefix (system prompt, earlier turns) evaluates only the rest; greedy answers may then round differently than computed afresh."))
  var noPromptCache = false

  @Option(name: .long, help: "CPU threads (default: all cores).")
  var threads: Int?

  @Option(name: .long, help: "Largest request body accepted, in bytes.")
  var maxRequestBytes = 4 << 20

  @Option(name: .long, help: "The registry's directory (SQLite metadata, model files). Default: $XDG_DATA_HOME/hybridai/registry.")
  var data: String?

  @Option(name: .long, help: "Bearer token for the registry's admin API. Default: $HYBRIDAI_ADMIN_TOKEN; without one the admin API is off.")
  var adminToken: String?

  @Option(name: .long, help: "The URL clients reach this server at (behind a reverse proxy); default: each request's Host.")
  var publicURL: String?

  @Option(name: .long, help: "Largest model file the registry accepts, in bytes.")
  var maxUploadBytes: Int64 = 8 << 30

  @Option(name: .long, help: "How long a download URL stays valid, in seconds.")
  var downloadURLLifetime = 3600

  @Flag(name: .long, help: "Serve only the model registry: no GGUF model is loaded.")
  var registryOnly = false

  @Option(name: .long, help: "On SIGTERM/SIGINT: seconds open streams may take to finish before they end with an UNAVAILABLE event.")
  var shutdownTimeout = 10

  @OptionGroup(title: "Web chat") var chat: ChatServeOptions

  @OptionGroup var offload: OffloadOptions

  @OptionGroup var logging: LoggingOptions

  func validate() throws {
    guard (0...65535).contains(port) else { throw ValidationError("--port must be 0...65535") }
    guard shutdownTimeout >= 0 else { throw ValidationError("--shutdown-timeout must be 0 or more seconds") }
    guard maxConcurrentRequests > 0 else { throw ValidationError("--max-concurrent-requests must be positive") }
    guard maxUploadBytes > 0 else { throw ValidationError("--max-upload-bytes must be positive") }
    guard downloadURLLifetime > 0 else { throw ValidationError("--download-url-lifetime must be positive") }
    if let publicURL {
      guard let url = URL(string: publicURL), ["http", "https"].contains(url.scheme ?? ""), url.host != nil else {
        throw ValidationError("--public-url must be an http(s) URL, e.g. https://models.example.com")
      }
    }
    if registryOnly, !model.isEmpty { throw ValidationError("--registry-only serves no GGUF model; drop --model") }
    if let requestsPerMinute, requestsPerMinute <= 0 { throw ValidationError("--requests-per-minute must be positive") }
    _ = try aliasSpecs(servedNames: registryOnly ? [] : modelSpecs().map(\.0))
  }

  func run() async throws {
    logging.bootstrap()
    ServingProcess.keepStreamingBuffersAllocated()
    let metrics = ServerMetrics()
    let health = ServerHealth()
    var models: [ServedModel] = []
    var batchedModels: [BatchedLanguageModel] = []
    for (name, path) in registryOnly ? [] : try modelSpecs() {
      var configuration = BatchedLanguageModel.Configuration()
      configuration.maxConcurrentSequences = maxConcurrentRequests
      configuration.contextSizePerSequence = contextSize
      configuration.reusesPromptPrefixes = !noPromptCache
      if let threads { configuration.threads = threads }
      configuration.gpuLayers = offload.gpuLayers
      configuration.device = offload.device
      let batched = BatchedLanguageModel(modelPath: path, configuration: configuration)
      guard batched.isAvailable, let placement = try? batched.placement() else {
        Terminal.status("error: model \(name) (\(path)) is \(batched.availability): \(batched.availabilityDetail ?? "")")
        throw ExitCode.failure
      }
      // Weights, context and one token now, so the first request is as fast as the others.
      let warming = ContinuousClock.now
      do {
        try await batched.prewarm()
      } catch {
        Terminal.status("error: model \(name) (\(path)) cannot answer: \(error)")
        throw ExitCode.failure
      }
      let warmed = ContinuousClock.now - warming
      Terminal.status("hybrid serve: model \(name) on \(placement), warmed in \(warmed.formatted(.units(allowed: [.milliseconds])))")
      models.append(ServedModel(name: name, batched: batched).metered(by: metrics))
      health.addCheck("model \(name)") { batched.isAvailable ? nil : "\(batched.availability)" }
      metrics.addRefresher {
        let occupancy = await batched.occupancy()
        metrics.gauge(MetricName.batchWidth, [("model", name)]).record(occupancy.active)
        metrics.gauge(MetricName.queueDepth, [("model", name)]).record(occupancy.waiting)
      }
      batchedModels.append(batched)
    }
    for (alias, target) in try aliasSpecs(servedNames: models.map(\.name)) {
      if let served = models.first(where: { $0.name == target }) { models.append(served.alias(alias)) }
    }
    let keys = Set(apiKey + (ProcessInfo.processInfo.environment["HYBRIDAI_SERVER_API_KEY"].map { [$0] } ?? []))
    if requestsPerMinute != nil, keys.isEmpty {
      Terminal.status("hybrid serve: --requests-per-minute limits each API key; no --api-key is set, so nothing is limited")
    }
    let environment = ProcessInfo.processInfo.environment
    let adminToken = adminToken ?? environment["HYBRIDAI_ADMIN_TOKEN"].flatMap { $0.isEmpty ? nil : $0 }
    let dataDirectory = data.map { URL(fileURLWithPath: $0, isDirectory: true) } ?? Self.defaultDataDirectory(environment)
    let registry: ModelRegistry
    do {
      registry = try ModelRegistry(configuration: RegistryConfiguration(
        dataDirectory: dataDirectory, adminToken: adminToken, publicURL: publicURL.flatMap(URL.init(string:)),
        maxUploadBytes: maxUploadBytes, downloadURLLifetime: .seconds(downloadURLLifetime)))
    } catch {
      Terminal.status("error: cannot open the model registry in \(dataDirectory.path): \(error)")
      throw ExitCode.failure
    }
    // The registry first: its `/v1/models/{name}:download` is more specific than the Gemini API's
    // `/v1/models/{model}` on the same path.
    health.addCheck("registry") { await registry.readinessProblem() }
    var components: [any ServerComponent] = [RegistryAPI(registry: registry, metrics: metrics)]
    if !models.isEmpty {
      components.append(GeminiCompatibleAPI(models: models))
      components.append(OpenAICompatibleAPI(models: models))   // the same models under /v1beta/openai/
    }
    var chatState = "web chat off"
    if let served = models.first, !chat.noChat {
      if let refusal = chat.refusal(host: host, apiKeys: keys) {
        Terminal.status("hybrid serve: \(refusal)")
      } else {
        let store = try chat.openSessionStore(dataDirectory: data)
        let cloud = try await chat.makeCloudModel()
        let sessions = ChatSessions(store: store, models: ChatModels(onDevice: served.model, cloud: cloud), tools: DemoTools.all)
        components.append(ChatApp(sessions: sessions, maxUploadBytes: chat.chatMaxUploadBytes))
        health.addCheck("sessions") {
          FileManager.default.isWritableFile(atPath: store.directory.path) ? nil : "\(store.directory.path) is not writable"
        }
        chatState = "web chat at / (sessions in \(store.directory.path)\(cloud.map { ", cloud \($0.modelIdentifier)" } ?? ""))"
      }
    }
    let server = HybridServer(
      configuration: ServerConfiguration(host: host, port: port, apiKeys: keys, maxRequestBytes: maxRequestBytes,
                                         requestsPerMinutePerKey: requestsPerMinute),
      components: components, health: health, metrics: metrics)
    let names = models.isEmpty ? "none"
      : models.map { $0.name == $0.modelVersion ? $0.name : "\($0.name) → \($0.modelVersion)" }.joined(separator: ", ")
    let host = self.host
    let registryState = "registry \(dataDirectory.path), admin API \(adminToken == nil ? "off" : "on"); \(chatState)"
    let shutdownTimeout = self.shutdownTimeout
    let onDevice = batchedModels
    try await server.run(onListening: { port in
      Terminal.write("hybrid serve: listening on http://\(host):\(port) (models: \(names); API key "
        + "\(keys.isEmpty ? "not required" : "required"); \(registryState))\n")
    }, onShutdownRequested: {
      Terminal.status("hybrid serve: stopping; open streams have \(shutdownTimeout) s to finish")
      guard (try? await Task.sleep(for: .seconds(shutdownTimeout))) != nil else { return }
      Terminal.status("hybrid serve: ending the streams still open")
      for model in onDevice { await model.shutDown() }
    })
    // Free llama.cpp's contexts, weights and backend now, in this order, rather than leave them to
    // the process's exit (on a GPU the CUDA driver may be gone by then).
    for model in batchedModels { await model.shutDown() }
    await OnDeviceRuntime.shutDown()
    Terminal.status("hybrid serve: stopped")
  }

  /// `$XDG_DATA_HOME/hybridai/registry`, or `~/.local/share/hybridai/registry`.
  static func defaultDataDirectory(_ environment: [String: String]) -> URL {
    let base = environment["XDG_DATA_HOME"].flatMap { $0.hasPrefix("/") ? URL(fileURLWithPath: $0, isDirectory: true) : nil }
      ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".local/share", isDirectory: true)
    return base.appendingPathComponent("hybridai/registry", isDirectory: true)
  }

  /// `(name, path)` for each `--model`, or the default model.
  func modelSpecs() throws -> [(String, String)] {
    if model.isEmpty { return [("smollm2", ModelLocator.defaultModelPath())] }
    return try model.map { spec in
      if let equals = spec.firstIndex(of: "=") {
        let name = String(spec[..<equals]), path = String(spec[spec.index(after: equals)...])
        guard Self.isValidName(name), !path.isEmpty else {
          throw ValidationError("--model \(spec): expected NAME=PATH with NAME made of letters, digits, '-', '_' and '.'")
        }
        return (name, path)
      }
      var name = URL(fileURLWithPath: spec).deletingPathExtension().lastPathComponent.lowercased()
      name = String(name.map { Self.isValidName(String($0)) ? $0 : "-" })
      return (name, spec)
    }
  }

  /// `(alias, model)` for each `--alias`, checked against the served names.
  func aliasSpecs(servedNames: [String]) throws -> [(String, String)] {
    var taken = Set(servedNames)
    return try alias.map { spec in
      let parts = spec.split(separator: "=", maxSplits: 1).map(String.init)
      let name = parts.first.map { $0.hasPrefix("models/") ? String($0.dropFirst(7)) : $0 } ?? ""
      guard parts.count == 2, Self.isValidName(name) else {
        throw ValidationError("--alias \(spec): expected ALIAS=MODEL with ALIAS made of letters, digits, '-', '_' and '.'")
      }
      guard servedNames.contains(parts[1]) else {
        let served = servedNames.isEmpty ? "none" : servedNames.joined(separator: ", ")
        throw ValidationError("--alias \(spec): no served model is named \(parts[1]) (served: \(served))")
      }
      guard taken.insert(name).inserted else { throw ValidationError("--alias \(spec): \(name) is already a served name") }
      return (name, parts[1])
    }
  }

  static func isValidName(_ name: String) -> Bool {
    !name.isEmpty && name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "-_.".contains($0)) }
  }
}
