import ArgumentParser
import Foundation
import HybridAI
import HybridAIChatApp
import HybridAIMCP
import HybridAIOnDevice
import HybridAIOpenAI
import HybridAIRegistry
import HybridAIServer
import HybridAIServing
import Configuration
import HybridCommandLine
import ModelDelivery
import NIOCore

/// `hybrid serve` — a self-hosted Gemini-compatible cloud on local GGUF models, and a model registry.
struct ServeCommand: AsyncParsableCommand {
  /// Where the server says what it does: `hybrid serve: …` lines, or JSON records with `--log-format json`.
  static let status = ServiceStatus(command: "hybrid serve", label: "hybrid.serve")

  static let configuration = CommandConfiguration(
    commandName: "serve",
    abstract: "Serve local GGUF models through the Gemini and OpenAI REST APIs, a web chat and a model registry.",
    discussion: """
      Gemini endpoints: POST /v1beta/models/{model}:generateContent, :streamGenerateContent?alt=sse, \
      :countTokens; GET /v1beta/models, /v1beta/models/{model}. Concurrent requests are decoded \
      together in one llama.cpp batch.
      OpenAI endpoints (docs/server.md): POST /v1/chat/completions (also under /v1beta/openai), GET /v1/models.
      Model registry (docs/model-delivery.md): GET /v1/models/{name}:download, signed blob URLs, and \
      the admin API under /v1/admin (needs --admin-token); OpenAPI document at /v1/openapi.yaml.
      Web chat (docs/web-chat.md): the page at /, its sessions API under /v1/chat; conversations are kept in --sessions-dir, where hybrid sessions list sees them.
      Stops gracefully on SIGINT or SIGTERM.
      Example: hybrid serve --port 8080 --model smollm2=.deps/models/SmolLM2-135M-Instruct.Q4_1.gguf --api-key secret --admin-token admin-secret
      """)

  @Option(name: .long, help: ArgumentHelp(
    "A config file (YAML or JSON): every setting below by its flag's name, e.g. port: 8080. Default: $HYBRIDAI_SERVE_CONFIG.",
    discussion: "Flags win over the environment (HYBRIDAI_SERVE_<NAME>, e.g. HYBRIDAI_SERVE_MAX_CONCURRENT_REQUESTS), which wins over the file. Secrets can come from files: admin-token-file, api-key-file (one key a line). See docs/server.md."))
  var config: String?

  @Flag(name: .long, help: "Print the effective configuration (secrets masked, each value's source) and exit.")
  var printConfig = false

  @Option(name: .long, help: "Address to bind (default: 127.0.0.1, loopback only).")
  var host: String?

  @Option(name: .long, help: "TCP port; 0 picks a free one (printed on start). Default: 8080.")
  var port: Int?

  @Option(name: .long, parsing: .singleValue,
          help: "A model to serve as NAME=PATH, or PATH (named after the file). Repeatable. Default: smollm2=<the bootstrap's SmolLM2>.")
  var model: [String] = []

  @Option(name: .long, parsing: .singleValue, help: ArgumentHelp(
    "Another name for a served model, as ALIAS=MODEL (e.g. gemini-2.5-flash=smollm2). Repeatable.",
    discussion: "Apps written for a Gemini model name then run unchanged against this server; answers report the served model's name as modelVersion."))
  var alias: [String] = []

  @Option(name: .long, parsing: .singleValue, help: ArgumentHelp(
    "A served model's chat template, as MODEL=TEMPLATE, or TEMPLATE for every model: a .jinja file, chatml, or a llama.cpp built-in name. Repeatable.",
    discussion: "Default: each model's own template from its GGUF file. A MODEL= one wins over one for every model.",
    valueName: "[model=]file|name"))
  var chatTemplate: [String] = []

  @Option(name: .long, parsing: .singleValue, help: ArgumentHelp(
    "A served model's multimodal projector, as MODEL=FILE (an mmproj GGUF): that model then reads images and audio. Repeatable.",
    discussion: "Default: the one mmproj*.gguf beside each model that matches it, or the projector an hf: or ollama: model brings.",
    valueName: "model=file"))
  var mmproj: [String] = []

  @Flag(name: .long, help: "Serve every model text only: no projector, not even the one beside it.")
  var noMmproj = false

  @Option(name: .long, parsing: .singleValue,
          help: "An API key clients must send (x-goog-api-key header, ?key= or Authorization: Bearer). Repeatable. Default: $HYBRIDAI_SERVER_API_KEY, else none required.")
  var apiKey: [String] = []

  @Option(name: .long, help: "A file of API keys, one a line (a secret kept out of the command line).")
  var apiKeyFile: String?

  @Option(name: .long, help: "The API key file (hybrid keys create writes it). Default: <--data>/api-keys.json; keys are required once it exists.")
  var keysFile: String?

  @Option(name: .long, help: ArgumentHelp(
    "Requests per minute each API key may send (429 RESOURCE_EXHAUSTED with Retry-After above it).",
    discussion: "Each key may burst up to the limit; its allowance refills evenly over a minute. A key's own limit (hybrid keys create --requests-per-minute) wins. With a PostgreSQL --registry-database, the instances on it share each key's allowance."))
  var requestsPerMinute: Int?

  @Option(name: .long, help: ArgumentHelp(
    "Prompt + output tokens per minute each API key may use (429 RESOURCE_EXHAUSTED with Retry-After once spent).",
    discussion: "An answer's tokens are counted when it ends; a key over its allowance waits until it refills. A key's own limit (hybrid keys create --tokens-per-minute) wins."))
  var tokensPerMinute: Int?

  @Option(name: .long, help: "Requests decoded together per model; more wait in line. Default: 8.")
  var maxConcurrentRequests: Int?

  @Option(name: .long, help: "Context window per request, in tokens. Default: 4096.")
  var contextSize: Int?

  @Flag(name: .long, help: ArgumentHelp(
    "Clear a request's keys and values when it ends.",
    discussion: "By default a finished request's cache stays in its sequence, so a later request with the same prompt prefix (system prompt, earlier turns) evaluates only the rest; greedy answers may then round differently than computed afresh."))
  var noPromptCache = false

  @Option(name: .long, help: ArgumentHelp(
    "MiB of memory for prompt caches that had to make room (restored when their conversation returns); 0 turns it off. Default: 256 on the CPU, off on a GPU.",
    valueName: "MiB"))
  var promptCacheMemory: Int?

  @Option(name: .long, help: ArgumentHelp(
    "How new prompts share the decode steps: reproducible (an answer is the one it gets alone), throughput (one llama.cpp call a step) or auto.",
    discussion: "auto (the default): throughput when the model sits on a GPU, reproducible on the CPU.",
    valueName: "auto|reproducible|throughput"))
  var promptScheduling: String?

  @Option(name: .long, help: ArgumentHelp(
    "llama.cpp contexts each model's requests are spread over (default: 1).",
    discussion: "With throughput scheduling on a GPU, one context's host work (sampling, text, launching its next step) runs while another's step computes; each holds its share of --max-concurrent-requests. On the CPU more contexts only add passes over the weights.",
    valueName: "N"))
  var batchContexts: Int?

  @Option(name: .long, help: ArgumentHelp(
    "Most tokens drafted per pass by speculative decoding from a request's own n-grams; 0 turns it off. Default: \(SpeculativeDecoding.ngram.maximumDraftTokens).",
    discussion: "Used in steps where one request decodes (reproducible scheduling); drafted tokens are kept only where the model chooses them too, so answers do not change.",
    valueName: "tokens"))
  var draftMax: Int?

  @Option(name: .long, parsing: .singleValue, help: ArgumentHelp(
    "A served model's draft model for speculative decoding, as MODEL=FILE (a smaller GGUF with the same vocabulary). Repeatable.",
    discussion: "It drafts instead of the request's n-grams; checked against the model's vocabulary at start. Pays where a pass of the draft model costs much less than one of the model.",
    valueName: "model=file"))
  var draftModel: [String] = []

  @Option(name: .long, help: ArgumentHelp(
    "How the models pool a text's token states into its embedding (/v1/embeddings, :embedContent).",
    discussion: "automatic (the default): the GGUF's own pooling, the mean for a model that states none (as llama-server --pooling mean); last-token often ranks better for a chat model's vectors.",
    valueName: "automatic|mean|first-token|last-token"))
  var embeddingPooling: String?

  @Option(name: .long, help: "CPU threads (default: all cores).")
  var threads: Int?

  @Option(name: .long, help: ArgumentHelp(
    "Model layers on the GPU: auto (all that fit on the first GPU, else the CPU), 0 (CPU only) or a count.",
    valueName: "auto|N|0"))
  var gpuLayers: String?

  @Option(name: .long, help: "Compute device for offloaded layers, by llama.cpp's name (CUDA0, Vulkan0, CPU); default: the first GPU.")
  var device: String?

  @Option(name: .long, help: "Largest request body accepted, in bytes. Default: 4 MiB.")
  var maxRequestBytes: Int?

  @Option(name: .long, help: "Seconds a connection may wait for a request's headers (or the next part of its body) before it is closed; 0: no limit. Default: 75.")
  var idleTimeout: Int?

  @Option(name: .long, help: "Seconds a request's line and headers may take from their first byte, however steadily they come; 0: no limit. Default: 60.")
  var headerTimeout: Int?

  @Option(name: .long, help: ArgumentHelp(
    "A web origin whose pages may call the APIs from a browser (CORS), e.g. https://app.example.com, or * for any (repeatable).",
    discussion: "Default: none. Keys still apply: a page sends its key in a header (Authorization or x-goog-api-key).",
    valueName: "origin"))
  var corsOrigin: [String] = []

  @Option(name: .long, help: "The registry's directory (SQLite metadata, model files, api-keys.json). Default: $XDG_DATA_HOME/hybridai/registry.")
  var data: String?

  @Option(name: .long, help: ArgumentHelp(
    "Where the registry's metadata lives: postgres://USER:PASSWORD@HOST:PORT/DATABASE (several instances share it) or sqlite:PATH.",
    discussion: "Default: sqlite:<--data>/registry.sqlite. Instances sharing a PostgreSQL database must share --data too (model files, signing key, api-keys.json). Also registry-database-file for a URL kept in a file.",
    valueName: "url"))
  var registryDatabase: String?

  @Option(name: .long, help: "Seconds to keep retrying an unreachable registry database at start (with backoff); default 0: fail at once.")
  var registryDatabaseWait: Int?

  @Option(name: .long, help: "Bearer token for the registry's admin API. Default: $HYBRIDAI_ADMIN_TOKEN; without one (or a registry-admin key) the admin API is off.")
  var adminToken: String?

  @Option(name: .long, help: "A file holding the admin token (a secret kept out of the command line).")
  var adminTokenFile: String?

  @Option(name: .long, help: "The URL clients reach this server at (behind a reverse proxy); default: each request's Host.")
  var publicURL: String?

  @Option(name: .long, help: "Largest model file the registry accepts, in bytes. Default: 8 GiB.")
  var maxUploadBytes: Int?

  @Option(name: .long, help: "How long a download URL stays valid, in seconds. Default: 3600.")
  var downloadURLLifetime: Int?

  @Flag(name: .long, help: "Serve only the model registry: no GGUF model is loaded.")
  var registryOnly = false

  @Option(name: .long, help: ArgumentHelp(
    "On SIGTERM/SIGINT: seconds open streams may take to finish before they end with an UNAVAILABLE event. Default: 10.",
    discussion: "Uploads and other requests get 5 seconds more, then are cancelled; an upload cut this way records nothing."))
  var shutdownTimeout: Int?

  @OptionGroup(title: "Web chat") var chat: ChatServeOptions

  @OptionGroup var logging: LoggingOptions

  /// The flags given on the command line, as settings (what wins over the environment and the file).
  var flags: [ServeSetting: ConfigContent] {
    var flags = chat.flags
    func set(_ setting: ServeSetting, _ value: String?) { if let value { flags[setting] = .string(value) } }
    func set(_ setting: ServeSetting, _ value: Int?) { if let value { flags[setting] = .int(value) } }
    func set(_ setting: ServeSetting, _ values: [String]) { if !values.isEmpty { flags[setting] = .stringArray(values) } }
    func set(_ setting: ServeSetting, _ value: Bool) { if value { flags[setting] = .bool(true) } }
    set(.config, config)
    set(.host, host)
    set(.port, port)
    set(.model, model)
    set(.alias, alias)
    set(.chatTemplate, chatTemplate)
    set(.mmproj, mmproj)
    set(.noMmproj, noMmproj)
    set(.apiKey, apiKey)
    set(ServeSetting(ServeSetting.apiKey.fileName, .string), apiKeyFile)
    set(.keysFile, keysFile)
    set(.requestsPerMinute, requestsPerMinute)
    set(.tokensPerMinute, tokensPerMinute)
    set(.maxConcurrentRequests, maxConcurrentRequests)
    set(.contextSize, contextSize)
    set(.noPromptCache, noPromptCache)
    set(.promptScheduling, promptScheduling)
    set(.promptCacheMemory, promptCacheMemory)
    set(.batchContexts, batchContexts)
    set(.draftMax, draftMax)
    set(.draftModel, draftModel)
    set(.embeddingPooling, embeddingPooling)
    set(.threads, threads)
    set(.gpuLayers, gpuLayers)
    set(.device, device)
    set(.maxRequestBytes, maxRequestBytes)
    set(.idleTimeout, idleTimeout)
    set(.headerTimeout, headerTimeout)
    set(.corsOrigin, corsOrigin)
    set(.data, data)
    set(.registryDatabase, registryDatabase)
    set(.registryDatabaseWait, registryDatabaseWait)
    set(.adminToken, adminToken)
    set(ServeSetting(ServeSetting.adminToken.fileName, .string), adminTokenFile)
    set(.publicURL, publicURL)
    set(.maxUploadBytes, maxUploadBytes)
    set(.downloadURLLifetime, downloadURLLifetime)
    set(.registryOnly, registryOnly)
    set(.shutdownTimeout, shutdownTimeout)
    set(.logLevel, logging.logLevel)
    set(.logFormat, logging.logFormat?.rawValue)
    return flags
  }

  /// The flags' own values are checked at once; the file's and the environment's when `run` reads them.
  func validate() throws {
    do {
      _ = try ServeSettings(ServeConfiguration.flagsOnly(flags), remoteModelsMayBeFetched: true)
    } catch {
      throw ValidationError(error.description)
    }
  }

  /// The effective settings: flags, then the environment, then the config file, then defaults.
  func resolveSettings(environment: [String: String] = ProcessInfo.processInfo.environment) async throws
    -> (ServeConfiguration, ServeSettings) {
    do {
      let configuration = try await ServeConfiguration.resolve(flags: flags, environment: environment)
      try await fetchModels(configuration, environment: environment)
      return (configuration, try ServeSettings(configuration))
    } catch let error where error is HuggingFaceHubError || error is ModelDownloadError {
      Self.status.fail("\(error)")
      throw ExitCode(ModelFetchExitCode.status(for: error) ?? 1)
    } catch {
      Self.status.fail("\(error)")
      throw ExitCode.validationFailure
    }
  }

  /// Fetches the `hf:` and `registry:` models of `configuration` that this machine lacks (a
  /// progress bar per file on stderr), so that resolving the settings finds them.
  private func fetchModels(_ configuration: ServeConfiguration, environment: [String: String]) async throws {
    guard !configuration.boolean(.registryOnly), !printConfig else { return }
    let fetcher = ModelReferenceFetcher(environment: environment)
    for spec in configuration.list(.model) {
      let (_, reference) = try ServeSettings.modelSpec(spec, origin: configuration.origin(.model))
      if reference.isFetchedWhenMissing { _ = try await fetcher.model(for: reference, progress: ModelFetchDisplay.bar()) }
    }
  }

  func run() async throws {
    let environment = ProcessInfo.processInfo.environment
    let (configuration, settings) = try await resolveSettings(environment: environment)
    if printConfig {
      Terminal.write(configuration.printable())
      return
    }
    LogSetup.bootstrap(level: settings.logLevel, format: settings.logFormat)
    if let file = configuration.file { Self.status.say("configuration from \(file)") }
    ServingProcess.keepStreamingBuffersAllocated()
    let metrics = ServerMetrics()
    let health = ServerHealth()
    var models: [ServedModel] = []
    var batchedModels: [BatchedLanguageModel] = []
    for (name, path, projector) in settings.models {
      var configuration = BatchedLanguageModel.Configuration()
      configuration.maxConcurrentSequences = settings.maxConcurrentRequests
      configuration.contextSizePerSequence = settings.contextSize
      configuration.reusesPromptPrefixes = !settings.noPromptCache
      configuration.promptScheduling = settings.promptScheduling
      configuration.promptCacheMemory = settings.promptCacheMemoryMiB.map { $0 << 20 }
      configuration.contexts = settings.batchContexts
      configuration.speculation = SpeculativeDecoding(maximumDraftTokens: settings.draftMax,
                                                      draftModelPath: settings.draftModels[name])
      configuration.pooling = settings.embeddingPooling
      if let threads = settings.threads { configuration.threads = threads }
      configuration.gpuLayers = settings.gpuLayers
      configuration.device = settings.device
      configuration.chatTemplate = settings.chatTemplates[name]?.template
      configuration.projectorPath = projector
      let batched = BatchedLanguageModel(modelPath: path, configuration: configuration)
      guard batched.isAvailable, let placement = try? batched.placement() else {
        Self.status.fail("model \(name) (\(path)) is \(batched.availability): \(batched.availabilityDetail ?? "")")
        throw ExitCode.failure
      }
      // Weights, context and one token now, so the first request is as fast as the others.
      let warming = ContinuousClock.now
      do {
        try await batched.prewarm()
      } catch {
        Self.status.fail("model \(name) (\(path)) cannot answer: \(error)")
        throw ExitCode.failure
      }
      let warmed = ContinuousClock.now - warming
      let cacheBytes = configuration.reusesPromptPrefixes ? configuration.promptCacheBytes(usesGPU: placement.usesGPU) : 0
      let promptCache = switch (cacheBytes, configuration.promptCacheMemory) {
      case (0, nil) where configuration.reusesPromptPrefixes: "off on a GPU"
      case (0, _): "off"
      case (let bytes, _): "\(bytes >> 20) MiB"
      }
      let contexts = batched.contexts > 1 ? ", \(batched.contexts) contexts" : ""
      if batched.contexts > 1, !placement.usesGPU {
        Self.status.warn("model \(name) runs on the CPU, where \(batched.contexts) contexts only add passes "
          + "over the weights (a step there is done when llama.cpp returns); --batch-contexts pays on a GPU, if at all")
      }
      let template = settings.chatTemplates[name].map { ", chat template \($0.argument)" } ?? ""
      let reads = batched.capabilities.inputModalities.subtracting([.text]).map(\.rawValue).sorted().joined(separator: " and ")
      let media = projector.map { ", projector \(URL(fileURLWithPath: $0).lastPathComponent) (\(reads))" } ?? ""
      let drafts = settings.draftModels[name].map { ", draft model \(URL(fileURLWithPath: $0).lastPathComponent)" } ?? ""
      Self.status.say("model \(name) on \(placement)\(contexts)\(template)\(media)\(drafts), prompt cache in RAM \(promptCache), warmed in \(warmed.formatted(.units(allowed: [.milliseconds])))")
      models.append(ServedModel(name: name, model: batched, contextSize: batched.configuration.contextSizePerSequence, embedder: batched).metered(by: metrics))
      health.addCheck("model \(name)") { batched.isAvailable ? nil : "\(batched.availability)" }
      metrics.addRefresher {
        let occupancy = await batched.occupancy()
        metrics.gauge(MetricName.batchWidth, [("model", name)]).record(occupancy.active)
        metrics.gauge(MetricName.queueDepth, [("model", name)]).record(occupancy.waiting)
      }
      batchedModels.append(batched)
    }
    for (alias, target) in settings.aliases {
      if let served = models.first(where: { $0.name == target }) { models.append(served.alias(alias)) }
    }
    let adminToken = settings.adminToken
    let dataDirectory = settings.data.map { URL(fileURLWithPath: $0, isDirectory: true) }
      ?? RegistryConfiguration.defaultDataDirectory(environment: environment)
    // The key file first: a broken one stops the start at once, not after waiting for the database.
    let keyFile = try Self.readKeyFile(settings, dataDirectory: dataDirectory, environment: environment)
    let store = try await Self.openRegistryStore(settings, dataDirectory: dataDirectory)
    // A database several instances share keeps the keys' limits for all of them.
    let keys = Self.makeKeyAuthority(settings, keyFile: keyFile, sharedLimits: store as? any RateLimitLedger)
    let registry: ModelRegistry
    do {
      registry = try ModelRegistry(configuration: RegistryConfiguration(
        dataDirectory: dataDirectory, adminToken: adminToken, publicURL: settings.publicURL,
        maxUploadBytes: settings.maxUploadBytes, downloadURLLifetime: .seconds(settings.downloadURLLifetime)), store: store)
    } catch {
      Self.status.fail("cannot open the model registry in \(dataDirectory.path): \(error)")
      await store.shutdown()
      throw ExitCode.failure
    }
    // The registry first: its `/v1/models/{name}:download` is more specific than the Gemini API's
    // `/v1/models/{model}` on the same path.
    // An instance that generates stays ready while the registry's database is away (the registry's
    // own calls answer 503): only a registry-only instance is taken out of the load balancer.
    health.addCheck("registry", required: models.isEmpty) { await registry.readinessProblem() }
    health.addCheck("api keys") { keys.keyFileProblem }
    // Limits counted per instance for a while are a lesser service, not a reason to stop serving.
    health.addCheck("api key limits", required: false) { keys.sharedLimitsProblem }
    if keys.hasSharedLimits {
      metrics.addRefresher { metrics.gauge(MetricName.apiKeyLimitsShared).record(keys.sharedLimitsProblem == nil ? 1 : 0) }
    }
    var components: [any ServerComponent] = [RegistryAPI(registry: registry, metrics: metrics)]
    let chatRefusal = settings.noChat ? nil : settings.chatRefusal(keysRequired: keys.isRequired)
    let chatIsOn = !models.isEmpty && !settings.noChat && chatRefusal == nil
    // The MCP servers, started once: the web chat offers their tools, and the models named by
    // mcp-api-model run them for API requests.
    var toolbox: MCPToolbox?
    if let first = models.first, chatIsOn || !settings.mcpAPIModels.isEmpty {
      toolbox = try await Self.connectToolbox(settings.mcpServers, samplingModel: first.model)
    }
    if !models.isEmpty {
      let apiModels = Self.apiModels(models, settings: settings, toolbox: toolbox)
      components.append(GeminiCompatibleAPI(models: apiModels))
      components.append(OpenAICompatibleAPI(models: apiModels))   // the same models under /v1beta/openai/
    }
    if !keys.isRequired, !settings.isLoopbackHost {
      Self.status.warn("--host \(settings.host) is not loopback and no API key is required: anyone who can "
        + "reach this machine can use its models (add --api-key, or hybrid keys create)")
    }
    var chatState = "web chat off"
    if let served = models.first, !settings.noChat {
      if let chatRefusal {
        Self.status.say("\(chatRefusal)")
      } else {
        let store = try settings.openSessionStore()
        let cloud = try await settings.makeChatCloudModel()
        let sessions = ChatSessions(store: store, models: ChatModels(onDevice: served.model, cloud: cloud), tools: DemoTools.all,
                                    toolGroups: toolbox.map(Self.toolGroups(of:)) ?? [], options: settings.chatOptions)
        components.append(ChatApp(sessions: sessions, maxUploadBytes: settings.chatMaxUploadBytes))
        health.addCheck("sessions") {
          FileManager.default.isWritableFile(atPath: store.directory.path) ? nil : "\(store.directory.path) is not writable"
        }
        chatState = "web chat at / (sessions in \(store.directory.path)\(cloud.map { ", cloud \($0.modelIdentifier)" } ?? ""))"
      }
    }
    var serverConfiguration = ServerConfiguration(host: settings.host, port: settings.port, keys: keys,
                                                  maxRequestBytes: settings.maxRequestBytes)
    serverConfiguration.allowedOrigins = settings.corsOrigins
    serverConfiguration.idleTimeout = settings.idleTimeout == 0 ? nil : .seconds(settings.idleTimeout)
    serverConfiguration.requestHeadTimeout = settings.headerTimeout == 0 ? nil : .seconds(settings.headerTimeout)
    // Streams get shutdown-timeout seconds and then end with UNAVAILABLE (the shutdown hook below);
    // from then on, uploads and other requests get a few seconds more, then are cancelled (nothing
    // half-written is recorded).
    serverConfiguration.shutdownGracePeriod = .seconds(Self.uploadGraceAfterStreams)
    let server = HybridServer(
      configuration: serverConfiguration,
      components: components, health: health, metrics: metrics)
    let names = models.isEmpty ? "none"
      : models.map { $0.name == $0.modelVersion ? $0.name : "\($0.name) → \($0.modelVersion)" }.joined(separator: ", ")
    let host = settings.host
    let adminState = switch (adminToken != nil, keys.hasActiveKey(withScope: .registryAdmin)) {
    case (true, _): "admin API on"
    case (false, true): "admin API on (registry-admin keys)"
    case (false, false): "admin API off (no admin token or registry-admin key)"
    }
    let registryState = "registry \(dataDirectory.path) (\(settings.registryDatabase?.redactedDescription ?? "SQLite")), \(adminState); \(chatState)"
    let shutdownTimeout = settings.shutdownTimeout
    let onDevice = batchedModels
    let servesModels = !models.isEmpty
    var listenFailure: String?
    // Blobs an upload stored but could not record (the database was away) go a minute after the
    // start, then every hour.
    let sweeper = Task.detached(priority: .background) {
      while (try? await Task.sleep(for: .seconds(60))) != nil {
        _ = try? await registry.removeStrayBlobs()
        guard (try? await Task.sleep(for: .seconds(3600 - 60))) != nil else { return }
      }
    }
    defer { sweeper.cancel() }
    do {
      try await server.run(onListening: { port in
        Self.status.say("listening on http://\(host):\(port) (models: \(names); API key "
          + "\(keys.isRequired ? "required" : "not required"); \(registryState))", toStandardOutput: true)
        if servesModels {
          // Where clients point their base URL (the OpenAI API also where Google serves it).
          Self.status.say("Gemini API at http://\(host):\(port)/v1beta, OpenAI API at "
            + "http://\(host):\(port)\(OpenAI.conventionalPathPrefix) (also \(OpenAI.servedPathPrefix))")
        }
      }, onShutdownRequested: {
        Self.status.say("stopping; open streams have \(shutdownTimeout) s to finish")
        guard (try? await Task.sleep(for: .seconds(shutdownTimeout))) != nil else { return }
        Self.status.say("ending the streams still open")
        for model in onDevice { await model.shutDown() }
      })
    } catch let error as IOError where [EADDRINUSE, EACCES, EADDRNOTAVAIL].contains(error.errnoCode) {
      // SwiftNIO words it as the syscall that failed ("bind(descriptor:ptr:bytes:): …"): say which address.
      let why = switch error.errnoCode {
      case EADDRINUSE: "is already in use (another hybrid serve? pick another --port)"
      case EACCES: "needs privileges (ports below 1024 do; pick another --port)"
      default: "is not an address of this machine (check --host)"
      }
      listenFailure = "cannot listen on \(settings.host):\(settings.port): it \(why)"
    }
    // Free llama.cpp's contexts, weights and backend now, in this order, rather than leave them to
    // the process's exit (on a GPU the CUDA driver may be gone by then).
    await toolbox?.close()
    for model in batchedModels { await model.shutDown() }
    await OnDeviceRuntime.shutDown()
    await store.shutdown()
    if let listenFailure {
      Self.status.fail("\(listenFailure)")
      throw ExitCode.failure
    }
    Self.status.say("stopped")
  }

  /// The configured MCP servers, started and their tools listed; `nil` without any. A server that
  /// cannot start stops `serve` here, naming it: a chat or an API without the tools its operator
  /// configured would fail its users quietly. Servers allowed to sample are answered by `samplingModel`.
  static func connectToolbox(_ servers: [MCPServerConfiguration], samplingModel: any LanguageModel) async throws -> MCPToolbox? {
    guard !servers.isEmpty else { return nil }
    do {
      let toolbox = try await MCPToolbox.connect(servers, samplingModel: samplingModel)
      Self.status.say("tools from MCP servers: " + toolGroups(of: toolbox)
        .map { "\($0.name) (\($0.tools.map(\.name).joined(separator: ", ")))" }.joined(separator: "; "))
      for refusal in toolbox.refusedTools { Self.status.say("  \(refusal)") }
      return toolbox
    } catch {
      Self.status.fail("cannot start the MCP servers: \(error)")
      throw ExitCode.failure
    }
  }

  /// The models as the Gemini and OpenAI APIs serve them: those named by mcp-api-model (and their
  /// aliases) run the MCP servers' tools themselves; the others offer only a request's own tools.
  static func apiModels(_ models: [ServedModel], settings: ServeSettings, toolbox: MCPToolbox?) -> [ServedModel] {
    guard let toolbox, !settings.mcpAPIModels.isEmpty else { return models }
    let named = settings.mcpAPIModels
    let runningTools = named.union(settings.aliases.filter { named.contains($0.model) }.map(\.alias))
    Self.status.say("the APIs of \(named.sorted().joined(separator: ", ")) run the MCP servers' tools themselves")
    return models.map { runningTools.contains($0.name) ? $0.runningTools(of: toolbox) : $0 }
  }

  /// A chat tool group per server of `toolbox`, in its order (each follows its server's changes).
  static func toolGroups(of toolbox: MCPToolbox) -> [ChatToolGroup] {
    toolbox.connections.map { ChatToolGroup(name: $0.name, catalog: toolbox.catalog(ofServer: $0.name)) }
  }

  /// The API key file, read once to say how many keys it holds; one that cannot be read stops the
  /// server here, with the reason.
  static func readKeyFile(_ settings: ServeSettings, dataDirectory: URL, environment: [String: String]) throws -> APIKeyFile {
    let file = APIKeyFile(url: KeyFileOptions.location(keysFile: settings.keysFile, data: dataDirectory.path, environment: environment))
    do {
      let records = try file.records()
      if !records.isEmpty {
        Self.status.say("\(records.count { !$0.isRevoked }) API key(s) from \(file.url.path) "
          + "(\(records.count { $0.isRevoked }) revoked)")
      }
    } catch {
      Self.status.fail("\(error)")
      throw ExitCode.failure
    }
    return file
  }

  /// The `api-key`s and the key file, with the per-key limits (counted in `sharedLimits` when given).
  static func makeKeyAuthority(_ settings: ServeSettings, keyFile file: APIKeyFile,
                               sharedLimits: (any RateLimitLedger)?) -> APIKeyAuthority {
    let keys = APIKeyAuthority(keys: settings.apiKeys, keyFile: file, requestsPerMinute: settings.requestsPerMinute,
                               tokensPerMinute: settings.tokensPerMinute, sharedLimits: sharedLimits)
    if settings.requestsPerMinute != nil || settings.tokensPerMinute != nil, !keys.isRequired {
      Self.status.say("requests-per-minute and tokens-per-minute limit each API key; no key is required, so nothing is limited")
    } else if keys.isRequired, sharedLimits != nil {
      Self.status.say("API key limits are counted in the registry database, shared by every instance on it")
    }
    return keys
  }

  /// The registry's store: `registry-database`, else SQLite in the data directory. An unreachable
  /// database is retried with backoff for `registry-database-wait` seconds, then stops the start.
  static func openRegistryStore(_ settings: ServeSettings, dataDirectory: URL) async throws -> any RegistryStore {
    let database = settings.registryDatabase ?? .sqlite(path: dataDirectory.appendingPathComponent("registry.sqlite").path)
    let deadline = ContinuousClock.now + .seconds(settings.registryDatabaseWait)
    var delay = Duration.milliseconds(250)
    while true {
      do {
        return try await database.openStore()
      } catch RegistryStoreError.unavailable(let reason) where ContinuousClock.now + delay < deadline {
        Self.status.say("the registry database is unreachable (\(reason)); retrying in \(delay.formatted(.units(allowed: [.seconds, .milliseconds])))")
        try await Task.sleep(for: delay)
        delay = min(delay * 2, .seconds(5))
      } catch {
        Self.status.fail("cannot open the registry database \(database.redactedDescription): \(error)")
        throw ExitCode.failure
      }
    }
  }

  /// Seconds past `shutdown-timeout` (once the streams have ended) that requests other than streams
  /// (uploads) may run on a stop.
  static let uploadGraceAfterStreams = 5
}
