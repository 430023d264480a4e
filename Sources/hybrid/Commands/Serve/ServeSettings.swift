import Foundation
import HybridAI
import HybridAIMCP
import HybridAIOnDevice
import HybridAIRegistry
import HybridCommandLine
import HybridOnDeviceCommandLine
import Logging
import ModelDelivery

/// `hybrid serve`'s settings, typed and checked, whichever layer set them (``ServeConfiguration``):
/// an error names the flag, variable or file key the bad value came from.
struct ServeSettings: Sendable {
  var host: String
  var port: Int
  /// `(name, path, projector)` for each model (the default model when none is given and not
  /// registry-only); `projector`: its `mmproj` GGUF, given or found beside it, or `nil` (text only).
  var models: [(name: String, path: String, projector: String?)]
  /// `(alias, model)` pairs.
  var aliases: [(alias: String, model: String)]
  /// The chat template configured for each served model (by name), and the value that named it;
  /// a model without one runs its GGUF's own.
  var chatTemplates: [String: (template: ChatTemplate, argument: String)]
  var apiKeys: Set<String>
  var keysFile: String?
  var requestsPerMinute: Int?
  var tokensPerMinute: Int?
  var maxConcurrentRequests: Int
  var contextSize: Int
  var noPromptCache: Bool
  /// Memory for saved prompt caches, in MiB (``BatchedLanguageModel/Configuration/promptCacheMemory``);
  /// `nil`: 256 on the CPU, off on a GPU.
  var promptCacheMemoryMiB: Int?
  /// `nil`: by where the model sits (``BatchedLanguageModel/Configuration/promptScheduling``).
  var promptScheduling: BatchedLanguageModel.PromptScheduling?
  /// llama.cpp contexts each model's sequences are spread over (``BatchedLanguageModel/Configuration/contexts``);
  /// `nil`: one.
  var batchContexts: Int?
  /// The most tokens of one speculative draft; 0: speculative decoding off.
  var draftMax = SpeculativeDecoding.ngram.maximumDraftTokens
  /// Each served model's draft model (`MODEL=FILE`), by served name.
  var draftModels: [String: String] = [:]
  /// How the served models pool a text's token states into its embedding.
  var embeddingPooling: EmbeddingPooling = .automatic
  var threads: Int?
  var gpuLayers: GPULayers
  var device: String?
  var maxRequestBytes: Int
  /// Seconds; 0: no limit.
  var idleTimeout: Int
  /// Seconds; 0: no limit.
  var headerTimeout: Int
  /// Web origins whose pages may call the APIs (CORS); `*` for any.
  var corsOrigins: [String]
  var data: String?
  /// Where the registry's metadata lives (`postgres://…` or `sqlite:PATH`); `nil`: `<data>/registry.sqlite`.
  var registryDatabase: RegistryDatabase?
  /// Seconds to keep trying an unreachable database at start.
  var registryDatabaseWait: Int
  var adminToken: String?
  var publicURL: URL?
  var maxUploadBytes: Int64
  var downloadURLLifetime: Int
  var registryOnly: Bool
  var shutdownTimeout: Int
  var noChat: Bool
  var chatWithoutKey: Bool
  var chatMaxUploadBytes: Int
  /// The longest answer the web chat lets a model give, in tokens.
  var chatMaxTokens: Int
  /// The multiplier of the web chat's loop penalty for on-device answers (0: off).
  var chatLoopPenalty: Double
  var chatCloudURL: String?
  var chatCloudModel: String?
  var sessionsDir: String?
  /// The MCP servers whose tools the web chat offers (from the `mcp-config` files and `mcp-servers`).
  var mcpServers: [MCPServerConfiguration]
  /// The served models (by name) whose APIs run the MCP servers' tools themselves.
  var mcpAPIModels: Set<String>
  var logLevel: String?
  var logFormat: LogFormat?

  /// The settings `configuration` holds. With `remoteModelsMayBeFetched`, an `hf:` or `registry:`
  /// model this machine lacks is accepted (path empty), as `serve` fetches it before it resolves
  /// the settings again.
  init(_ configuration: ServeConfiguration, remoteModelsMayBeFetched: Bool = false) throws(ServeConfigurationError) {
    func invalid(_ setting: ServeSetting, _ reason: String) -> ServeConfigurationError {
      .invalidValue(configuration.origin(setting), reason: reason)
    }
    func positive(_ setting: ServeSetting) throws(ServeConfigurationError) -> Int? {
      guard let value = configuration.integer(setting) else { return nil }
      guard value > 0 else { throw invalid(setting, "must be positive, not \(value)") }
      return value
    }
    host = configuration.string(.host) ?? "127.0.0.1"
    guard !host.isEmpty else { throw invalid(.host, "must name an address, e.g. 127.0.0.1 or 0.0.0.0") }
    port = configuration.integer(.port) ?? 8080
    guard (0...65535).contains(port) else { throw invalid(.port, "must be 0...65535, not \(port)") }
    registryOnly = configuration.boolean(.registryOnly)
    let modelSpecs = configuration.list(.model)
    if registryOnly, !modelSpecs.isEmpty {
      throw invalid(.model, "names a model, but registry-only (\(configuration.origin(.registryOnly))) loads none: drop one of them")
    }
    models = registryOnly ? [] : try Self.models(modelSpecs, origin: configuration.origin(.model),
                                                 remoteModelsMayBeFetched: remoteModelsMayBeFetched)
    aliases = try Self.aliases(configuration.list(.alias), servedNames: models.map(\.name), origin: configuration.origin(.alias))
    let templateSpecs = configuration.list(.chatTemplate)
    if registryOnly, !templateSpecs.isEmpty {
      throw invalid(.chatTemplate, "names a chat template, but registry-only (\(configuration.origin(.registryOnly))) loads no model: drop one of them")
    }
    chatTemplates = try Self.chatTemplates(templateSpecs, servedNames: models.map(\.name), origin: configuration.origin(.chatTemplate))
    let projectors = try Self.files(configuration.list(.mmproj), servedNames: models.map(\.name),
                                    origin: configuration.origin(.mmproj), kind: "a projector")
    if configuration.boolean(.noMmproj) {
      guard projectors.isEmpty else { throw invalid(.mmproj, "names a projector, but no-mmproj (\(configuration.origin(.noMmproj))) serves text only: drop one of them") }
      models = models.map { ($0.name, $0.path, nil) }
    } else {
      models = models.map { ($0.name, $0.path, projectors[$0.name] ?? $0.projector) }
    }
    apiKeys = Set(configuration.list(.apiKey).filter { !$0.isEmpty })
    keysFile = configuration.string(.keysFile)
    requestsPerMinute = try positive(.requestsPerMinute)
    tokensPerMinute = try positive(.tokensPerMinute)
    maxConcurrentRequests = try positive(.maxConcurrentRequests) ?? 8
    contextSize = try positive(.contextSize) ?? 4096
    noPromptCache = configuration.boolean(.noPromptCache)
    promptCacheMemoryMiB = configuration.integer(.promptCacheMemory)
    if let promptCacheMemoryMiB, !(0...(1 << 20)).contains(promptCacheMemoryMiB) {
      throw invalid(.promptCacheMemory, "must be 0 (off) to 1048576 MiB, not \(promptCacheMemoryMiB)")
    }
    switch configuration.string(.promptScheduling)?.lowercased() ?? "auto" {
    case "auto": promptScheduling = nil
    case "reproducible": promptScheduling = .reproducible
    case "throughput": promptScheduling = .throughput
    case let other: throw invalid(.promptScheduling, "must be auto, reproducible or throughput, not \(other)")
    }
    batchContexts = try positive(.batchContexts)
    if let batchContexts, batchContexts > maxConcurrentRequests {
      throw invalid(.batchContexts, "must be at most max-concurrent-requests (\(maxConcurrentRequests)), not \(batchContexts)")
    }
    draftMax = configuration.integer(.draftMax) ?? SpeculativeDecoding.ngram.maximumDraftTokens
    guard (0...1024).contains(draftMax) else { throw invalid(.draftMax, "must be 0 (off) to 1024 tokens, not \(draftMax)") }
    draftModels = try Self.files(configuration.list(.draftModel), servedNames: models.map(\.name),
                                 origin: configuration.origin(.draftModel), kind: "a draft model")
    if draftMax == 0, !draftModels.isEmpty {
      throw invalid(.draftModel, "names a draft model, but draft-max 0 (\(configuration.origin(.draftMax))) turns speculative decoding off: drop one of them")
    }
    let pooling = configuration.string(.embeddingPooling) ?? "automatic"
    guard let chosenPooling = EmbeddingPooling(argument: pooling) else {
      throw invalid(.embeddingPooling, "must be automatic, mean, first-token or last-token, not \(pooling)")
    }
    embeddingPooling = chosenPooling
    threads = try positive(.threads)
    do {
      gpuLayers = try GPULayers(parsing: configuration.string(.gpuLayers) ?? "auto")
    } catch {
      throw invalid(.gpuLayers, "must be auto, 0 or a number of layers, not \(configuration.string(.gpuLayers) ?? "")")
    }
    device = configuration.string(.device)
    if let device, device.trimmingCharacters(in: .whitespaces).isEmpty { throw invalid(.device, "needs a device name such as CUDA0") }
    maxRequestBytes = try positive(.maxRequestBytes) ?? 4 << 20
    idleTimeout = configuration.integer(.idleTimeout) ?? 75
    guard idleTimeout >= 0 else { throw invalid(.idleTimeout, "must be 0 (no limit) or more seconds") }
    headerTimeout = configuration.integer(.headerTimeout) ?? 60
    guard headerTimeout >= 0 else { throw invalid(.headerTimeout, "must be 0 (no limit) or more seconds") }
    corsOrigins = configuration.list(.corsOrigin).filter { !$0.isEmpty }
    for origin in corsOrigins where origin != "*" {
      guard let url = URL(string: origin), ["http", "https"].contains(url.scheme ?? ""), url.host != nil,
            url.path.isEmpty, url.query == nil, url.fragment == nil else {
        throw invalid(.corsOrigin, "must be * or an origin such as https://app.example.com (scheme, host and port only), not \(origin)")
      }
    }
    data = configuration.string(.data)
    if let url = configuration.string(.registryDatabase) {
      do {
        registryDatabase = try RegistryDatabase(url: url)
      } catch {
        throw invalid(.registryDatabase, "is not usable: \(error.description)")
      }
    }
    registryDatabaseWait = configuration.integer(.registryDatabaseWait) ?? 0
    guard registryDatabaseWait >= 0 else { throw invalid(.registryDatabaseWait, "must be 0 or more seconds") }
    adminToken = configuration.string(.adminToken).flatMap { $0.isEmpty ? nil : $0 }
    if let text = configuration.string(.publicURL) {
      guard let url = URL(string: text), ["http", "https"].contains(url.scheme ?? ""), url.host != nil else {
        throw invalid(.publicURL, "must be an http(s) URL, e.g. https://models.example.com")
      }
      publicURL = url
    }
    maxUploadBytes = Int64(try positive(.maxUploadBytes) ?? 8 << 30)
    downloadURLLifetime = try positive(.downloadURLLifetime) ?? 3600
    shutdownTimeout = configuration.integer(.shutdownTimeout) ?? 10
    guard shutdownTimeout >= 0 else { throw invalid(.shutdownTimeout, "must be 0 or more seconds") }
    noChat = configuration.boolean(.noChat)
    chatWithoutKey = configuration.boolean(.chatWithoutKey)
    chatMaxUploadBytes = try positive(.chatMaxUploadBytes) ?? 20 << 20
    chatMaxTokens = try positive(.chatMaxTokens) ?? 1024
    chatLoopPenalty = configuration.number(.chatLoopPenalty) ?? LoopPenalty.standard.multiplier
    guard chatLoopPenalty >= 0, chatLoopPenalty.isFinite else {
      throw invalid(.chatLoopPenalty, "must be 0 (off) or more (0.8 usual), not \(chatLoopPenalty)")
    }
    chatCloudURL = configuration.string(.chatCloudURL)
    if let chatCloudURL {
      guard let url = URL(string: chatCloudURL), ["http", "https"].contains(url.scheme ?? ""), url.host != nil else {
        throw invalid(.chatCloudURL, "must be an http(s) URL, e.g. http://127.0.0.1:8081")
      }
    }
    chatCloudModel = configuration.string(.chatCloudModel)
    sessionsDir = configuration.string(.sessionsDir)
    mcpServers = []
    for file in configuration.list(.mcpConfig) {
      do {
        mcpServers += try MCPConfigurationFile.servers(at: URL(fileURLWithPath: file))
      } catch {
        throw invalid(.mcpConfig, "\(file): \(error)")
      }
    }
    if let inline = configuration.string(.mcpServers) {
      do {
        mcpServers += try MCPConfigurationFile.servers(inlineJSON: inline, origin: configuration.origin(.mcpServers))
      } catch {
        throw invalid(.mcpServers, "\(error)")
      }
    }
    if let clash = Dictionary(grouping: mcpServers, by: \.name).first(where: { $0.value.count > 1 })?.key {
      throw invalid(.mcpConfig, "two MCP servers are named \(clash): names must differ across the files and mcp-servers")
    }
    mcpAPIModels = []
    for name in configuration.list(.mcpAPIModel) {
      guard !mcpServers.isEmpty else {
        throw invalid(.mcpAPIModel, "names \(name), but no MCP server is configured (mcp-config, mcp-servers) whose tools it could run")
      }
      guard models.contains(where: { $0.name == name }) else {
        let served = models.isEmpty ? "none" : models.map(\.name).joined(separator: ", ")
        throw invalid(.mcpAPIModel, "no served model is named \(name) (served: \(served))")
      }
      mcpAPIModels.insert(name)
    }
    logLevel = configuration.string(.logLevel)
    if let level = logLevel, Logger.Level(rawValue: level.lowercased()) == nil {
      throw invalid(.logLevel, "must be one of \(Logger.Level.allCases.map(\.rawValue).joined(separator: ", ")), not \(level)")
    }
    if let format = configuration.string(.logFormat) {
      guard let parsed = LogFormat(rawValue: format.lowercased()) else { throw invalid(.logFormat, "must be text or json, not \(format)") }
      logFormat = parsed
    }
  }

  /// `(name, path)` for each model spec (`NAME=REF` or `REF`; REF a GGUF path, `hf:…` or `ollama:…`,
  /// found in its store), or the default model.
  static func models(_ specs: [String], origin: String,
                     environment: [String: String] = ProcessInfo.processInfo.environment,
                     remoteModelsMayBeFetched: Bool = false) throws(ServeConfigurationError)
    -> [(name: String, path: String, projector: String?)] {
    if specs.isEmpty { return [("smollm2", ModelLocator.defaultModelPath(), nil)] }
    var result: [(name: String, path: String, projector: String?)] = []
    for spec in specs {
      let (name, reference) = try modelSpec(spec, origin: origin)
      let local: LocalModel?
      do {
        local = try LocalModelResolver(environment: environment).resolve(reference)
      } catch ModelReferenceError.notFound(let missing, _) where remoteModelsMayBeFetched && missing.isFetchedWhenMissing {
        local = nil
      } catch {
        throw .invalidValue(origin, reason: "\(spec): \(error)")
      }
      let servedName = name ?? String(reference.shortName.map { isValidName(String($0)) ? $0 : "-" })
      result.append((servedName, local?.weights.path ?? "", local?.projector?.path))
    }
    return result
  }

  /// The file (a projector, a draft model: `kind`) for each served model named in `MODEL=FILE`
  /// specs (the file must exist).
  static func files(_ specs: [String], servedNames: [String], origin: String, kind: String) throws(ServeConfigurationError)
    -> [String: String] {
    var result: [String: String] = [:]
    for spec in specs {
      guard let equals = spec.firstIndex(of: "="), case let name = String(spec[..<equals]), servedNames.contains(name) else {
        let served = servedNames.isEmpty ? "none" : servedNames.joined(separator: ", ")
        throw .invalidValue(origin, reason: "\(spec): expected MODEL=FILE naming a served model (served: \(served))")
      }
      let file = String(spec[spec.index(after: equals)...])
      guard FileManager.default.isReadableFile(atPath: file) else {
        throw .invalidValue(origin, reason: "\(spec): no readable file at \(file)")
      }
      guard result.updateValue(file, forKey: name) == nil else {
        throw .invalidValue(origin, reason: "\(spec): model \(name) already has \(kind)")
      }
    }
    return result
  }

  /// The served name (when `NAME=` gives one) and the model reference of one `--model` value.
  static func modelSpec(_ spec: String, origin: String) throws(ServeConfigurationError) -> (name: String?, reference: ModelReference) {
    var name: String?, text = spec
    // NAME=REF; a reference's own `=` (none today) would come after its `:`.
    if let equals = spec.firstIndex(of: "="), !spec[..<equals].contains(":") {
      name = String(spec[..<equals])
      text = String(spec[spec.index(after: equals)...])
      guard let name, isValidName(name), !text.isEmpty else {
        throw .invalidValue(origin, reason: "\(spec): expected NAME=PATH with NAME made of letters, digits, '-', '_' and '.'")
      }
    }
    do {
      return (name, try ModelReference(text))
    } catch {
      throw .invalidValue(origin, reason: "\(spec): \(error)")
    }
  }


  /// `(alias, model)` for each alias spec, checked against the served names.
  static func aliases(_ specs: [String], servedNames: [String], origin: String) throws(ServeConfigurationError)
    -> [(alias: String, model: String)] {
    var taken = Set(servedNames)
    var result: [(alias: String, model: String)] = []
    for spec in specs {
      let parts = spec.split(separator: "=", maxSplits: 1).map(String.init)
      let name = parts.first.map { $0.hasPrefix("models/") ? String($0.dropFirst(7)) : $0 } ?? ""
      guard parts.count == 2, isValidName(name) else {
        throw .invalidValue(origin, reason: "\(spec): expected ALIAS=MODEL with ALIAS made of letters, digits, '-', '_' and '.'")
      }
      guard servedNames.contains(parts[1]) else {
        let served = servedNames.isEmpty ? "none" : servedNames.joined(separator: ", ")
        throw .invalidValue(origin, reason: "\(spec): no served model is named \(parts[1]) (served: \(served))")
      }
      guard taken.insert(name).inserted else { throw .invalidValue(origin, reason: "\(spec): \(name) is already a served name") }
      result.append((name, parts[1]))
    }
    return result
  }

  /// The template for each served model from `[MODEL=]TEMPLATE` specs: `MODEL=` for one model,
  /// none for every model (a `MODEL=` one wins). A path that exists is a file even with a `=` in it.
  static func chatTemplates(_ specs: [String], servedNames: [String], origin: String) throws(ServeConfigurationError)
    -> [String: (template: ChatTemplate, argument: String)] {
    var forEveryModel: (template: ChatTemplate, argument: String)?
    var forOne: [String: (template: ChatTemplate, argument: String)] = [:]
    for spec in specs {
      var target: String?
      var argument = spec
      if let equals = spec.firstIndex(of: "="), !FileManager.default.fileExists(atPath: spec) {
        let name = String(spec[..<equals])
        if isValidName(name) {
          guard servedNames.contains(name) else {
            let served = servedNames.isEmpty ? "none" : servedNames.joined(separator: ", ")
            throw .invalidValue(origin, reason: "\(spec): no served model is named \(name) (served: \(served); an alias takes its model's template)")
          }
          target = name
          argument = String(spec[spec.index(after: equals)...])
        }
      }
      let template: ChatTemplate
      do {
        template = try ChatTemplateArgument.template(argument)
      } catch {
        throw .invalidValue(origin, reason: "\(spec): \(error.description)")
      }
      if let target {
        guard forOne.updateValue((template, argument), forKey: target) == nil else {
          throw .invalidValue(origin, reason: "\(spec): model \(target) already has a chat template")
        }
      } else {
        guard forEveryModel == nil else {
          throw .invalidValue(origin, reason: "\(spec): a template for every model is already given (name the model: MODEL=TEMPLATE)")
        }
        forEveryModel = (template, argument)
      }
    }
    var result = forOne
    if let forEveryModel { for name in servedNames where result[name] == nil { result[name] = forEveryModel } }
    return result
  }

  static func isValidName(_ name: String) -> Bool {
    !name.isEmpty && name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "-_.".contains($0)) }
  }
}
