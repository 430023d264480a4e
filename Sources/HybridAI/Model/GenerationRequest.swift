/// Everything a ``LanguageModel`` needs to answer one turn of a session.
public struct GenerationRequest: Sendable {
  /// The conversation so far, ending with the prompt to answer.
  public var transcript: Transcript
  /// How to generate.
  public var options: GenerationOptions
  /// Per-session storage a backend may use for caches that belong to the session (such as a
  /// KV cache). It lives as long as the session does.
  public let sessionState: ModelStateStore
  /// The tools the model may call. A model that can call tools ends its turn with
  /// ``GenerationEvent/toolCalls(_:)`` instead of an answer when it wants them.
  public var tools: [ToolDefinition]
  /// The shape the answer must have (JSON following the schema), or `nil` for free text.
  public var responseFormat: ResponseFormat?
  /// Where the bytes of the transcript's attachments are (the session's store); `nil` when the
  /// transcript has none.
  public var artifactStore: (any ArtifactStore)?
  /// How the transcript becomes the model's input: in its chat template (the default), or, for a
  /// text completion, the one prompt's text as it is (``PromptRendering/plainText``).
  public var promptRendering: PromptRendering

  public init(transcript: Transcript, options: GenerationOptions, sessionState: ModelStateStore = ModelStateStore(),
              tools: [ToolDefinition] = [], responseFormat: ResponseFormat? = nil, artifactStore: (any ArtifactStore)? = nil,
              promptRendering: PromptRendering = .chatTemplate) {
    self.transcript = transcript
    self.options = options
    self.sessionState = sessionState
    self.tools = tools
    self.responseFormat = responseFormat
    self.artifactStore = artifactStore
    self.promptRendering = promptRendering
  }
}

/// Whether a model can serve a particular request.
public enum RequestSupport: Sendable, Hashable {
  case supported
  case unsupported(UnsupportedReason)
}

/// Why a model cannot serve a particular request.
public enum UnsupportedReason: Sendable, Hashable, CustomStringConvertible {
  /// The prompt needs more tokens than the model's context window holds.
  case exceedsContextWindow(promptTokens: Int, contextSize: Int)
  /// The request contains an input kind the model does not take (images, audio, …).
  case unsupportedInput(String)
  /// The request asks for an answer of a kind the model cannot give (``GenerationOptions/responseModalities``).
  case unsupportedOutput(Modality)
  /// The model cannot enforce the requested response schema (what it cannot express, in words).
  case unsupportedSchema(String)
  /// The model cannot enforce a tool's parameters schema (the tool's name; what it cannot express).
  case unsupportedToolParameters(tool: String, reason: String)
  /// Anything else, described for logs and errors.
  case other(String)

  public var description: String {
    switch self {
    case .exceedsContextWindow(let prompt, let context):
      "the prompt needs \(prompt) tokens but the context window holds \(context)"
    case .unsupportedInput(let kind): "input of kind \(kind) is not supported"
    case .unsupportedOutput(let modality): "answers of kind \(modality) are not supported"
    case .unsupportedSchema(let reason): "the response schema cannot be enforced: \(reason)"
    case .unsupportedToolParameters(let tool, let reason): "the parameters of tool \(tool) cannot be enforced: \(reason)"
    case .other(let text): text
    }
  }
}
