import CLlama
import Foundation
import HybridAI
import Logging

/// The on-device language model: a GGUF model run in process by llama.cpp.
///
/// ```swift
/// let model = SystemLanguageModel.default            // SmolLM2 from scripts/bootstrap, or $HYBRIDAI_MODEL
/// guard model.isAvailable else { print(model.availability); return }
/// let session = GenerativeModelSession(model: model)
/// print(try await session.respond(to: "Hello!").content)
/// ```
///
/// Weights load once per process and are shared by every session; each session keeps its own
/// context and KV cache and reuses the cached prefix across turns.
///
/// Weights can also be delivered from a model registry (`ModelDelivery`'s `ModelDownloader`):
///
/// ```swift
/// let downloader = ModelDownloader(server: URL(string: "http://127.0.0.1:8080")!)
/// let system = SystemLanguageModel(modelFile: downloader.modelFile(named: "smollm2"))
/// system.prepareAssets()   // starts the download now (the first request routed here would too)
/// // .unavailable(.modelNotReady) while the weights download, so a hybrid session uses the cloud meanwhile:
/// let session = GenerativeModelSession(model: .hybrid(primary: system, secondary: cloud))
/// ```
public struct SystemLanguageModel: LanguageModel {
  /// The default on-device model: `$HYBRIDAI_MODEL` if set, otherwise SmolLM2-135M-Instruct
  /// as installed by `scripts/bootstrap` (see ``ModelLocator``).
  public static let `default` = SystemLanguageModel(modelPath: ModelLocator.defaultModelPath())

  /// Where the weights come from.
  enum Weights: Sendable {
    /// A GGUF file at a path.
    case file(String)
    /// A file delivered over the network, which may not be here yet.
    case delivered(any ModelFileSource)
  }

  let weights: Weights
  /// How the model runs.
  public let configuration: Configuration

  let logger: Logger

  /// A model from any GGUF file.
  public init(modelPath: String, configuration: Configuration = Configuration()) {
    self.init(weights: .file(modelPath), logName: URL(fileURLWithPath: modelPath).lastPathComponent,
              configuration: configuration)
  }

  /// A model whose GGUF file is delivered over the network, e.g. by `ModelDownloader.modelFile(named:)`.
  /// Until the file is on this device, ``availability`` is `.unavailable(.modelNotReady)` (the
  /// detail shows the download's progress); ``prepareAssets()``, or a request routed to this model,
  /// starts the download.
  public init(modelFile: any ModelFileSource, configuration: Configuration = Configuration()) {
    self.init(weights: .delivered(modelFile), logName: modelFile.name, configuration: configuration)
  }

  private init(weights: Weights, logName: String, configuration: Configuration) {
    self.weights = weights
    self.configuration = configuration
    var logger = Logger(label: "HybridAI.onDevice")
    logger[metadataKey: "model"] = "\(logName)"
    self.logger = logger
  }

  /// The GGUF file: the path given, or a delivered file's path once it is on this device (empty before).
  public var modelPath: String {
    switch weights {
    case .file(let path): path
    case .delivered(let source): if case .ready(let path, _) = source.fileState { path } else { "" }
    }
  }

  /// The delivered file's source, for a model created with ``init(modelFile:configuration:)``.
  public var modelFile: (any ModelFileSource)? {
    if case .delivered(let source) = weights { source } else { nil }
  }

  /// Reported as `modelVersion`: ``Configuration/modelName`` when set, else the file name without
  /// `.gguf`, e.g. `SmolLM2-135M-Instruct.Q4_1`;
  /// for a delivered model its registry name and version, e.g. `smollm2-v3` (just the name before
  /// it is downloaded).
  public var modelIdentifier: String {
    switch weights {
    case .file(let path):
      if let modelName = configuration.modelName { return modelName }
      let name = URL(fileURLWithPath: path).lastPathComponent
      return name.hasSuffix(".gguf") ? String(name.dropLast(5)) : name
    case .delivered(let source):
      if case .ready(_, let version) = source.fileState { return "\(source.name)-v\(version)" }
      return source.name
    }
  }

  /// Always ``ModelSource/onDevice``.
  public var source: ModelSource { .onDevice }

  // MARK: - Availability

  /// Whether the model can run now. Cheap: checks the switch, the device, and the file's header
  /// (cached per file); it never loads weights.
  public var availability: ModelAvailability {
    availability(environment: ProcessInfo.processInfo.environment).availability
  }

  /// ``availability`` with a human-readable explanation when unavailable.
  public var availabilityDetail: String? {
    availability(environment: ProcessInfo.processInfo.environment).detail
  }

  func availability(environment: [String: String]) -> (availability: ModelAvailability, detail: String?) {
    func unavailable(_ reason: ModelAvailability.UnavailableReason, _ detail: String) -> (ModelAvailability, String?) {
      logger.debug("on-device model unavailable", metadata: ["reason": "\(reason)", "detail": "\(detail)"])
      return (.unavailable(reason), detail)
    }
    if !configuration.isEnabled {
      return unavailable(.disabled, "disabled by the app's configuration")
    }
    if let value = environment["HYBRIDAI_ON_DEVICE"], ["off", "0", "false", "no", "disabled"].contains(value.lowercased()) {
      return unavailable(.disabled, "disabled by HYBRIDAI_ON_DEVICE=\(value)")
    }
    if let problem = DeviceEligibility.cpuProblem {
      return unavailable(.deviceNotEligible, problem)
    }
    let modelPath: String
    switch weights {
    case .file(let path):
      modelPath = path
    case .delivered(let source):
      switch source.fileState {
      case .ready(let path, _):
        modelPath = path
      case .downloading(let received, let total):
        return unavailable(.modelNotReady, "\(source.name) is downloading: \(Self.progressText(received, of: total))")
      case .notDownloaded:
        return unavailable(.modelNotReady, "\(source.name) is not on this device yet (prepareAssets() or a request downloads it)")
      case .failed(let reason):
        return unavailable(.modelNotReady, "\(source.name) could not be downloaded (\(reason)); prepareAssets() or a request tries again")
      }
    }
    for suffix in [".part", ".download", ".partial"] where FileManager.default.fileExists(atPath: modelPath + suffix) {
      return unavailable(.modelNotReady, "\(modelPath) is still downloading (\(suffix) file present)")
    }
    switch GGUFFileCheck.check(modelPath) {
    case nil:
      if weightsKeptAfterTheFileWent != nil { return (.available, nil) }   // answering from memory
      return unavailable(.modelNotReady, "no model file at \(modelPath)")
    case .invalid(let reason):
      return unavailable(.invalidModelFile, "\(modelPath): \(reason)")
    case .valid(let shape):
      if let problem = DeviceEligibility.memoryProblem(modelFileSize: shape.fileSize, contextSize: configuration.contextSize) {
        return unavailable(.deviceNotEligible, problem)
      }
      do {
        _ = try placement(of: modelPath, shape: shape)
      } catch {
        return unavailable(.deviceNotEligible, error.description)
      }
    }
    if let failure = LlamaWeightsCache.shared.loadFailure(at: modelPath) {
      return unavailable(.invalidModelFile, failure.description)
    }
    return (.available, nil)
  }

  /// Starts the delivered file's download in the background unless it is on this device or on
  /// its way; returns at once. A file given by path needs nothing. Routing calls this for a
  /// request that finds the model `.modelNotReady`; call it yourself to fetch the file ahead.
  public func prepareAssets() {
    guard case .delivered(let source) = weights else { return }
    switch source.fileState {
    case .notDownloaded, .failed: source.prepareFile()
    case .ready, .downloading: break
    }
  }

  // MARK: - Placement

  /// Where the model's layers run on this machine: how many on which GPU, and why (see
  /// ``Configuration/gpuLayers`` and ``Configuration/device``). Reads the file's header and the
  /// devices' free memory; loads no weights. The first answer for a file is kept, so the memory
  /// the weights take once loaded does not change it.
  ///
  /// Throws ``OffloadError`` when the configuration asks for what this machine lacks, and
  /// ``OnDeviceModelError`` when the file is missing or not a GGUF model.
  public func placement() throws -> ModelPlacement {
    if let kept = weightsKeptAfterTheFileWent { return kept.placement }
    return try placement(of: modelPath, shape: fileShape())
  }

  /// The weights loaded earlier from ``modelPath`` when the file has since been moved or deleted:
  /// they go on answering from memory (a server stays ready). A file replaced at the same path is
  /// not this case: it is loaded anew.
  var weightsKeptAfterTheFileWent: LlamaModelWeights? {
    guard !modelPath.isEmpty, !FileManager.default.fileExists(atPath: modelPath) else { return nil }
    return LlamaWeightsCache.shared.keptWeights(at: modelPath)
  }

  /// The context the model was trained with: from the file's header, or from the weights kept in
  /// memory when the file has gone.
  func trainingContextLength() throws -> Int {
    if let kept = weightsKeptAfterTheFileWent { return kept.trainingContextLength }
    return try fileShape().trainingContextLength
  }

  /// The model file's header (cached per file): what its weights look like, without loading them.
  /// Throws ``OnDeviceModelError`` when the file is missing, not downloaded yet, or not a GGUF model.
  func fileShape() throws -> GGUFModelShape {
    let modelPath = self.modelPath
    if modelPath.isEmpty, let source = modelFile { throw OnDeviceModelError.modelNotDownloaded(name: source.name) }
    switch GGUFFileCheck.check(modelPath) {
    case nil: throw OnDeviceModelError.modelFileMissing(path: modelPath)
    case .invalid(let reason): throw OnDeviceModelError.invalidModelFile(path: modelPath, reason: reason)
    case .valid(let shape): return shape
    }
  }

  /// `configured` tokens, capped at the model's training context when the file states one.
  static func cappedContextSize(_ configured: Int, trainingContextLength: Int) -> Int {
    trainingContextLength > 0 ? min(configured, trainingContextLength) : configured
  }

  private func placement(of modelPath: String, shape: GGUFModelShape) throws(OffloadError) -> ModelPlacement {
    let contextTokens = Self.cappedContextSize(configuration.contextSize, trainingContextLength: shape.trainingContextLength)
    return try PlacementCache.shared.placement(
      of: modelPath, shape: shape, contextTokens: contextTokens, request: configuration.gpuLayers,
      deviceName: configuration.device, contexts: configuration.contextsSharingWeights)
  }

  // MARK: - Requests

  /// Whether the rendered prompt fits the context window. Other problems (no chat template, a
  /// file that fails to load) are reported by ``generate(_:)`` as typed errors.
  public func supports(_ request: GenerationRequest) async -> RequestSupport {
    await support(for: request, contextSize: effectiveContextSize)
  }

  /// Text, and the images or audio its projector (``Configuration/projectorPath``) reads.
  public var capabilities: ModelCapabilities {
    guard let projectorPath = configuration.projectorPath else { return .text }
    return ModelCapabilities(inputModalities: ProjectorCache.shared.modalities(ofProjectorAt: projectorPath))
  }

  /// Whether the rendered prompt fits a context of `contextSize(weights)` tokens; shared with
  /// ``BatchedLanguageModel``, whose context is per sequence.
  func support(for request: GenerationRequest, contextSize: (LlamaModelWeights) -> Int) async -> RequestSupport {
    if let projectorPath = configuration.projectorPath, request.options.unreadableAttachments != .reference {
      // Of the kinds the projector reads, the file types libmtmd cannot decode (WebP, HEIC, Ogg).
      let media = MediaRendering(marker: "", modalities: ProjectorCache.shared.modalities(ofProjectorAt: projectorPath))
      if let attachment = request.newAttachments.first(where: { media.modalities.contains($0.modality) && !media.reads($0) }) {
        return .unsupported(.unsupportedInput(attachment.mimeType))
      }
    }
    let prepared: PreparedPrompt
    do {
      prepared = try await prepare(request)
    } catch GenerationError.unsupportedRequest(let reason) {
      return .unsupported(reason)
    } catch {
      return .supported   // other problems are reported by generate(_:) as typed errors
    }
    let size = contextSize(prepared.weights)
    guard prepared.tokens.count < size else {
      logger.debug("request does not fit the context window", metadata: [
        "promptTokens": "\(prepared.tokens.count)", "contextSize": "\(size)",
      ])
      return .unsupported(.exceedsContextWindow(promptTokens: prepared.tokens.count, contextSize: size))
    }
    return .supported
  }

  public func generate(_ request: GenerationRequest) -> AsyncThrowingStream<GenerationEvent, any Error> {
    let (stream, continuation) = AsyncThrowingStream.makeStream(of: GenerationEvent.self)
    let task = Task {
      do {
        let started = ContinuousClock.now
        let prepared = try await prepare(request)
        let conversation = conversation(for: prepared.weights, draftWeights: try await draftWeights(for: prepared.weights),
                                        in: request.sessionState)
        let cancellation = CancellationFlag()
        let response = try await withTaskCancellationHandler {
          try await conversation.respond(
            to: prepared.prompt, options: prepared.options(for: request), guidance: prepared.guidance,
            modelVersion: modelIdentifier, requestStarted: started, cancellation: cancellation,
            onEvent: { continuation.yield($0) })
        } onCancel: {
          cancellation.cancel()
        }
        continuation.yield(.completed(response))
        continuation.finish()
      } catch {
        continuation.finish(throwing: error)
      }
    }
    continuation.onTermination = { _ in task.cancel() }
    return stream
  }

  // MARK: - Internals

  /// A request's prompt: the weights it was tokenized with and its tokens (chat template applied).
  struct PreparedPrompt {
    let weights: LlamaModelWeights
    /// Its tokens, with the places of images and sounds (evaluated through the projector).
    let prompt: MultimodalPrompt
    /// The grammar for the answer (response schema, tools), or `nil` for free text.
    let guidance: DecodingGuidance?
    /// Texts that end the model's turn without being a token of its own (see
    /// ``ResolvedChatTemplate/turnEndTexts(weights:)``): stop sequences for every answer.
    var turnEndTexts: [String] = []

    var tokens: [llama_token] { prompt.tokens }

    /// The on-device options of `request`, with ``turnEndTexts`` among the stop sequences.
    func options(for request: GenerationRequest) -> GenerationOptions {
      var options = request.options.genericOptions(for: .onDevice)
      for text in turnEndTexts where !options.stopSequences.contains(text) { options.stopSequences.append(text) }
      return options
    }
  }

  /// The weights (loaded once per process). Throws for an undelivered or unloadable model.
  func loadedWeights() async throws -> LlamaModelWeights {
    let modelPath = self.modelPath
    if modelPath.isEmpty, let source = modelFile {
      source.prepareFile()
      throw OnDeviceModelError.modelNotDownloaded(name: source.name)
    }
    return try await LlamaWeightsCache.shared.weights(at: modelPath, placement: placement())
  }

  /// Loads the weights (once per process), renders the transcript with the chat template and
  /// tokenizes it (once per request: cached in the session's state). Shared with ``BatchedLanguageModel``.
  func prepare(_ request: GenerationRequest) async throws -> PreparedPrompt {
    if let invalid = request.options.genericOptions(for: .onDevice).invalidOption {
      throw GenerationError.unsupportedRequest(.other(invalid))
    }
    let weights = try await loadedWeights()
    if request.promptRendering == .plainText {
      // A text completion: the text as it is (control tokens written in it count, as llama-server
      // reads a completion's prompt), no template, no grammar, no turn-end texts.
      let tokens = try weights.tokenize(try request.plainTextPrompt(), addSpecial: true, parseSpecial: true)
      return PreparedPrompt(weights: weights, prompt: MultimodalPrompt(tokens: tokens), guidance: nil)
    }
    let template = try resolvedChatTemplate(for: weights)
    let cache = request.sessionState.state(for: "llama.prompt:\(modelPath)") { RenderedPromptCache() }
    let projector = try configuration.projectorPath.map { (path) throws(OnDeviceModelError) in
      try ProjectorCache.shared.projector(at: path, for: weights, threads: configuration.threads,
                                         useGPU: (try? placement().usesGPU) ?? false, logger: logger)
    }
    let prompt = try cache.prompt(for: request, template: configuration.chatTemplate, weights: weights) {
      try template.render(request, weights: weights, projector: projector)
    }
    let guidance: DecodingGuidance?
    if let rendering = prompt.nativeToolCalls {
      let callsRequired = if case .required = request.options.toolChoice { true } else { false }
      guidance = .native(rendering, callsRequired: callsRequired)
    } else {
      do {
        guidance = try DecodingGuidance.cached(for: request)
      } catch {
        if case .toolParameters(let tool, let reason) = error {
          throw GenerationError.unsupportedRequest(.unsupportedToolParameters(tool: tool, reason: reason))
        }
        throw GenerationError.unsupportedRequest(.unsupportedSchema(error.description))
      }
    }
    return PreparedPrompt(weights: weights, prompt: prompt.prompt, guidance: guidance,
                          turnEndTexts: template.turnEndTexts(weights: weights))
  }

  /// The text of the tokens `request` decodes from: the prompt exactly as the model reads it (for
  /// tests and debugging; special tokens included).
  func promptText(for request: GenerationRequest) async throws -> String {
    let prepared = try await prepare(request)
    return String(decoding: prepared.tokens.flatMap { prepared.weights.bytes(of: $0, special: true) }, as: UTF8.self)
  }

  /// "12.5 of 256.0 MB (5%)", or "12.5 MB" while the total is unknown.
  static func progressText(_ received: Int64, of total: Int64?) -> String {
    let megabytes = { (bytes: Int64) in String(format: "%.1f", Double(bytes) / 1_000_000) }
    guard let total, total > 0 else { return "\(megabytes(received)) MB" }
    return "\(megabytes(received)) of \(megabytes(total)) MB (\(Int(Double(received) * 100 / Double(total)))%)"
  }

  private func effectiveContextSize(_ weights: LlamaModelWeights) -> Int {
    Self.cappedContextSize(configuration.contextSize, trainingContextLength: weights.trainingContextLength)
  }

  /// The session's conversation (context + KV cache) for these weights and settings.
  func conversation(for weights: LlamaModelWeights, draftWeights: LlamaModelWeights? = nil,
                    in store: ModelStateStore) -> LlamaConversation {
    let settings = LlamaConversation.Settings(
      contextSize: effectiveContextSize(weights), batchSize: configuration.batchSize, threads: configuration.threads,
      speculation: configuration.speculation.supported(by: weights, logger: logger))
    let key = "llama:\(ObjectIdentifier(weights).hashValue):\(settings.hashValue)"
    return store.state(for: key) {
      LlamaConversation(weights: weights, settings: settings,
                        draftWeights: settings.speculation.usesDraftModel ? draftWeights : nil, logger: logger)
    }
  }

  /// The draft model's weights (``SpeculativeDecoding/draftModelPath``), loaded once and checked
  /// against `weights`; `nil` when speculation does not use one.
  func draftWeights(for weights: LlamaModelWeights) async throws -> LlamaModelWeights? {
    guard configuration.speculation.usesDraftModel, let path = configuration.speculation.draftModelPath,
          weights.canForgetLastTokens else { return nil }
    return try await DraftModelPairing.shared.draftWeights(at: path, for: weights)
  }
}

extension SystemLanguageModel {
  /// How the on-device model runs.
  public struct Configuration: Sendable, Hashable {
    /// The name reported as `modelVersion` instead of the file's (for a file whose name says
    /// nothing, such as a blob of Ollama's store); `nil` uses the file name.
    public var modelName: String?
    /// Tokens the context window holds (capped at the model's training context). Each session's
    /// KV cache is sized for it.
    public var contextSize: Int
    /// Tokens evaluated per llama.cpp batch during prompt processing.
    public var batchSize: Int
    /// CPU threads; defaults to the number of cores.
    public var threads: Int
    /// The chat template; `nil` uses the one stored in the GGUF file.
    public var chatTemplate: ChatTemplate?
    /// `false` switches the model off (``ModelAvailability/UnavailableReason/disabled``).
    public var isEnabled: Bool
    /// How many layers run on a GPU: ``GPULayers/automatic`` (the default) puts all that fit on the
    /// first GPU a loaded backend offers, and uses the CPU when there is none.
    public var gpuLayers: GPULayers
    /// The device for offloaded layers by llama.cpp's name (`CUDA0`, `Vulkan1`, `CPU`); `nil` picks
    /// the first GPU. See ``ComputeBackends/devices``.
    public var device: String?
    /// How ``SystemLanguageModel/embeddings(for:)`` pools a text's token states into its vector.
    public var pooling: EmbeddingPooling
    /// Speculative decoding: ``SpeculativeDecoding/ngram`` (the default) drafts from the
    /// conversation's own tokens, ``SpeculativeDecoding/off`` decodes one token per pass.
    public var speculation: SpeculativeDecoding
    /// The multimodal projector (an `mmproj` GGUF made for these weights) through which the model
    /// reads images and audio itself; `nil`: text only. What it reads sets ``SystemLanguageModel/capabilities``.
    public var projectorPath: String?
    /// llama.cpp contexts that will use the weights at once (a ``BatchedLanguageModel``'s
    /// ``BatchedLanguageModel/Configuration/contexts``): the offload planner keeps room for each
    /// one's compute buffers.
    var contextsSharingWeights = 1

    public init(contextSize: Int = 4096, batchSize: Int = 512,
                threads: Int = ProcessInfo.processInfo.activeProcessorCount,
                chatTemplate: ChatTemplate? = nil, isEnabled: Bool = true,
                gpuLayers: GPULayers = .automatic, device: String? = nil, pooling: EmbeddingPooling = .automatic,
                speculation: SpeculativeDecoding = .ngram, projectorPath: String? = nil) {
      self.speculation = speculation
      self.projectorPath = projectorPath
      self.contextSize = contextSize
      self.batchSize = batchSize
      self.threads = max(1, threads)
      self.chatTemplate = chatTemplate
      self.isEnabled = isEnabled
      self.gpuLayers = gpuLayers
      self.device = device
      self.pooling = pooling
    }
  }

  /// Apple's spelling, for code that ports.
  public typealias Availability = ModelAvailability
}
