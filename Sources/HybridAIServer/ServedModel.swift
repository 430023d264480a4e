import HybridAI
import HybridAIOpenAIWire
import Logging

/// A model the server offers under a name, e.g. `models/smollm2`.
public struct ServedModel: Sendable {
  /// The name in URLs (`/v1beta/models/{name}:generateContent`), without `models/`.
  public private(set) var name: String
  /// The model that answers (each answer's tokens charged to the caller's API key).
  public let model: any LanguageModel
  /// The model as given, before the charging.
  let base: any LanguageModel
  /// Counts the prompt tokens of a request (its transcript and tool declarations), for `:countTokens`.
  public let countTokens: @Sendable (GenerationRequest) async throws -> Int
  /// The most prompt tokens a request may have.
  public let inputTokenLimit: Int
  /// The most tokens an answer may have.
  public let outputTokenLimit: Int

  /// The model that embeds texts under this name (`:embedContent`, `:batchEmbedContents`,
  /// `/v1/embeddings`), or `nil` when this name does not embed.
  public let embedder: (any EmbeddingModel)?

  /// The `modelVersion` reported to clients: the served name (an alias reports its model's), so
  /// answers say which server model replied.
  public let modelVersion: String

  public init(name: String, model: any LanguageModel, inputTokenLimit: Int, outputTokenLimit: Int,
              embedder: (any EmbeddingModel)? = nil,
              countTokens: @escaping @Sendable (GenerationRequest) async throws -> Int) {
    self.name = name
    self.embedder = embedder
    self.base = model
    self.model = KeyChargedLanguageModel(base: model, countPrompt: countTokens)
    self.inputTokenLimit = inputTokenLimit
    self.outputTokenLimit = outputTokenLimit
    self.countTokens = countTokens
    self.modelVersion = name
  }

  /// This model running `catalog`'s tools itself for every request of the Gemini and OpenAI APIs:
  /// a request's answer may come from several rounds, the server calling its tools in between (the
  /// client's own tools are answered by the client as before). Up to `maximumRounds` rounds call
  /// tools; the next must answer.
  ///
  /// ```swift
  /// let toolbox = try await MCPToolbox.connect(servers)
  /// let served = ServedModel(name: "smollm2", model: model, contextSize: 4096).runningTools(of: toolbox)
  /// ```
  public func runningTools(of catalog: any ToolCatalog, maximumRounds: Int = 8) -> ServedModel {
    let running = ServedModel(
      name: modelVersion, model: ServerToolRunningModel(base: base, catalog: catalog, maximumRounds: maximumRounds),
      inputTokenLimit: inputTokenLimit, outputTokenLimit: outputTokenLimit, embedder: embedder, countTokens: countTokens)
    return name == modelVersion ? running : running.alias(name)
  }

  /// This model under another name as well, e.g. `gemini-2.5-flash`, so apps written for that name
  /// run unchanged; its answers report this model's ``modelVersion``.
  public func alias(_ alias: String) -> ServedModel {
    var copy = self
    copy.name = alias
    return copy
  }

  /// A model whose context holds `contextSize` tokens for each request (a batched on-device model's
  /// `contextSizePerSequence`), counting prompts with its own ``LanguageModel/tokenCount(for:)``;
  /// `embedder` (often the model itself) answers the embedding endpoints under the same name.
  public init(name: String, model: any LanguageModel, contextSize: Int, embedder: (any EmbeddingModel)? = nil) {
    self.init(name: name, model: model, inputTokenLimit: contextSize, outputTokenLimit: contextSize, embedder: embedder,
              countTokens: { try await model.tokenCount(for: $0) })
  }

  /// The model's whole answer to `request`: its text, the files it made, its tool calls and its
  /// completion (`nil` when the stream ended without one).
  func wholeAnswer(to request: GenerationRequest) async throws -> WholeAnswer {
    var answer = WholeAnswer()
    for try await event in model.generate(request) {
      switch event {
      case .textDelta(let delta): answer.text += delta
      case .artifact(let artifact): answer.files.append(artifact)
      case .toolCalls(let calls): answer.toolCalls += calls
      case .completed(let raw): answer.completion = raw
      case .routed: break   // served models answer themselves
      case .logProbabilities: break   // all of them are in the completion
      }
    }
    return answer
  }

  /// A served model's whole answer.
  struct WholeAnswer: Sendable {
    var text = ""
    var files: [Artifact] = []
    var toolCalls: [Transcript.ToolCall] = []
    var completion: RawResponse?
  }

  /// `request`, once the model says it is ready for it (else the reason, as a ``GenerationError``).
  func checked(_ request: GenerationRequest, logger: Logger) async throws -> GenerationRequest {
    if let error = await model.readiness(for: request).error(modelIdentifier: name) { throw error }
    logger.debug("generating", metadata: ["model": "\(name)", "turns": "\(request.transcript.count)"])
    return request
  }
}

extension ServedModel {
  /// This model in OpenAI's model list (`GET …/models`): its name, `created` (when the server
  /// started, in seconds since 1970), `owned_by: hybrid-serve` and the kinds of input it reads
  /// (`architecture.input_modalities`: text, and image or audio when its projector reads them).
  func openAIDescription(created: Int) -> ChatModelInfo {
    let capabilities = model.capabilities
    return ChatModelInfo(id: name, created: created, ownedBy: "hybrid-serve", architecture: .init(
      inputModalities: Modality.ordered(capabilities.inputModalities).map(\.rawValue),
      outputModalities: Modality.ordered(capabilities.outputModalities).map(\.rawValue)))
  }
}

extension ServedModel {
  /// `models` in their order, each name once (the first of a repeated name).
  static func listed(_ models: [ServedModel]) -> [ServedModel] {
    var seen = Set<String>()
    return models.filter { seen.insert($0.name).inserted }
  }
}
