import Foundation

/// A whole answer (`object: "chat.completion"`).
public struct ChatCompletion: Sendable, Hashable, Codable {
  public var id: String
  public var object: String
  /// Unix seconds.
  public var created: Int
  public var model: String
  public var choices: [Choice]
  public var usage: ChatUsage?

  public init(id: String, created: Int, model: String, choices: [Choice], usage: ChatUsage?) {
    self.id = id
    self.object = "chat.completion"
    self.created = created
    self.model = model
    self.choices = choices
    self.usage = usage
  }

  /// Decodes leniently, as compatible servers differ: `id`, `object`, `created` and `model` may be
  /// missing.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    id = try container.decodeIfPresent(String.self, forKey: .id) ?? ""
    object = try container.decodeIfPresent(String.self, forKey: .object) ?? "chat.completion"
    created = try container.decodeIfPresent(Int.self, forKey: .created) ?? 0
    model = try container.decodeIfPresent(String.self, forKey: .model) ?? ""
    choices = try container.decode([Choice].self, forKey: .choices)
    usage = try container.decodeIfPresent(ChatUsage.self, forKey: .usage)
  }

  enum CodingKeys: String, CodingKey { case id, object, created, model, choices, usage }

  /// One choice: the assistant's message and why it ended (`stop`, `length`, `tool_calls`).
  public struct Choice: Sendable, Hashable, Codable {
    public var index: Int
    public var message: ChatMessage
    public var finishReason: String?
    /// The tokens' log probabilities, when the request asked for them.
    public var logprobs: ChatLogProbabilities?

    public init(index: Int, message: ChatMessage, finishReason: String?, logprobs: ChatLogProbabilities? = nil) {
      self.index = index
      self.message = message
      self.finishReason = finishReason
      self.logprobs = logprobs
    }

    public init(from decoder: any Decoder) throws {
      let container = try decoder.container(keyedBy: CodingKeys.self)
      index = try container.decodeIfPresent(Int.self, forKey: .index) ?? 0
      message = try container.decode(ChatMessage.self, forKey: .message)
      finishReason = try container.decodeIfPresent(String.self, forKey: .finishReason)
      logprobs = try container.decodeIfPresent(ChatLogProbabilities.self, forKey: .logprobs)
    }

    enum CodingKeys: String, CodingKey { case index, message, logprobs, finishReason = "finish_reason" }
  }
}

/// Token counts of one answer.
public struct ChatUsage: Sendable, Hashable, Codable {
  public var promptTokens: Int
  public var completionTokens: Int
  public var totalTokens: Int
  public var promptTokensDetails: PromptTokensDetails?
  public var completionTokensDetails: CompletionTokensDetails?

  /// Counts; `acceptedPredictionTokens` and `rejectedPredictionTokens` are the drafted tokens of
  /// speculative decoding that became part of the answer and that were checked in vain.
  public init(promptTokens: Int, completionTokens: Int, cachedTokens: Int? = nil, reasoningTokens: Int? = nil,
              acceptedPredictionTokens: Int? = nil, rejectedPredictionTokens: Int? = nil, audioTokens: Int? = nil) {
    self.promptTokens = promptTokens
    self.completionTokens = completionTokens
    self.totalTokens = promptTokens + completionTokens
    if cachedTokens != nil || audioTokens != nil {
      self.promptTokensDetails = PromptTokensDetails(cachedTokens: cachedTokens, audioTokens: audioTokens)
    }
    let details = CompletionTokensDetails(reasoningTokens: reasoningTokens, acceptedPredictionTokens: acceptedPredictionTokens,
                                          rejectedPredictionTokens: rejectedPredictionTokens)
    self.completionTokensDetails = details == CompletionTokensDetails(reasoningTokens: nil) ? nil : details
  }

  /// Decodes leniently: a missing count is 0, a missing total the sum; a negative or absurd count
  /// is clamped to 0…2³¹−1.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    func count(_ key: CodingKeys) throws -> Int? {
      try container.decodeIfPresent(Int.self, forKey: key).map { min(max(0, $0), Int(Int32.max)) }
    }
    promptTokens = try count(.promptTokens) ?? 0
    completionTokens = try count(.completionTokens) ?? 0
    totalTokens = try count(.totalTokens) ?? promptTokens + completionTokens
    promptTokensDetails = try? container.decodeIfPresent(PromptTokensDetails.self, forKey: .promptTokensDetails)
    completionTokensDetails = try? container.decodeIfPresent(CompletionTokensDetails.self,
                                                             forKey: .completionTokensDetails)
  }

  enum CodingKeys: String, CodingKey {
    case promptTokens = "prompt_tokens", completionTokens = "completion_tokens", totalTokens = "total_tokens"
    case promptTokensDetails = "prompt_tokens_details", completionTokensDetails = "completion_tokens_details"
  }

  /// `completion_tokens_details`.
  public struct CompletionTokensDetails: Sendable, Hashable, Codable {
    public var reasoningTokens: Int?
    /// Predicted (drafted) tokens that appeared in the answer.
    public var acceptedPredictionTokens: Int?
    /// Predicted (drafted) tokens that did not; they count as work like answer tokens.
    public var rejectedPredictionTokens: Int?

    public init(reasoningTokens: Int?, acceptedPredictionTokens: Int? = nil, rejectedPredictionTokens: Int? = nil) {
      self.reasoningTokens = reasoningTokens
      self.acceptedPredictionTokens = acceptedPredictionTokens
      self.rejectedPredictionTokens = rejectedPredictionTokens
    }

    enum CodingKeys: String, CodingKey {
      case reasoningTokens = "reasoning_tokens", acceptedPredictionTokens = "accepted_prediction_tokens"
      case rejectedPredictionTokens = "rejected_prediction_tokens"
    }
  }

  /// `prompt_tokens_details`.
  public struct PromptTokensDetails: Sendable, Hashable, Codable {
    public var cachedTokens: Int?
    /// The prompt's tokens of sound.
    public var audioTokens: Int?

    public init(cachedTokens: Int?, audioTokens: Int? = nil) {
      self.cachedTokens = cachedTokens
      self.audioTokens = audioTokens
    }

    enum CodingKeys: String, CodingKey { case cachedTokens = "cached_tokens", audioTokens = "audio_tokens" }
  }
}

/// One server-sent event of a streamed answer (`object: "chat.completion.chunk"`).
public struct ChatCompletionChunk: Sendable, Hashable, Codable {
  public var id: String
  public var object: String
  public var created: Int
  public var model: String
  public var choices: [Choice]
  /// Only on the last chunk, with `stream_options.include_usage` (then `choices` is empty).
  public var usage: ChatUsage?

  public init(id: String, created: Int, model: String, choices: [Choice], usage: ChatUsage? = nil) {
    self.id = id
    self.object = "chat.completion.chunk"
    self.created = created
    self.model = model
    self.choices = choices
    self.usage = usage
  }

  /// Decodes leniently, as compatible servers differ: `id`, `object`, `created`, `model` and
  /// `choices` may be missing.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    id = try container.decodeIfPresent(String.self, forKey: .id) ?? ""
    object = try container.decodeIfPresent(String.self, forKey: .object) ?? "chat.completion.chunk"
    created = try container.decodeIfPresent(Int.self, forKey: .created) ?? 0
    model = try container.decodeIfPresent(String.self, forKey: .model) ?? ""
    choices = try container.decodeIfPresent([Choice].self, forKey: .choices) ?? []
    usage = try container.decodeIfPresent(ChatUsage.self, forKey: .usage)
  }

  enum CodingKeys: String, CodingKey { case id, object, created, model, choices, usage }

  public struct Choice: Sendable, Hashable, Codable {
    public var index: Int
    public var delta: Delta
    public var finishReason: String?
    /// Log probabilities of the tokens this chunk adds, when the request asked for them.
    public var logprobs: ChatLogProbabilities?

    public init(index: Int = 0, delta: Delta, finishReason: String? = nil, logprobs: ChatLogProbabilities? = nil) {
      self.index = index
      self.delta = delta
      self.finishReason = finishReason
      self.logprobs = logprobs
    }

    enum CodingKeys: String, CodingKey { case index, delta, logprobs, finishReason = "finish_reason" }

    public init(from decoder: any Decoder) throws {
      let container = try decoder.container(keyedBy: CodingKeys.self)
      index = try container.decodeIfPresent(Int.self, forKey: .index) ?? 0
      delta = try container.decodeIfPresent(Delta.self, forKey: .delta) ?? Delta()
      finishReason = try container.decodeIfPresent(String.self, forKey: .finishReason)
      logprobs = try container.decodeIfPresent(ChatLogProbabilities.self, forKey: .logprobs)
    }

    public func encode(to encoder: any Encoder) throws {
      var container = encoder.container(keyedBy: CodingKeys.self)
      try container.encode(index, forKey: .index)
      try container.encode(delta, forKey: .delta)
      try container.encodeIfPresent(logprobs, forKey: .logprobs)
      try container.encode(finishReason, forKey: .finishReason)   // null until the last chunk, as OpenAI sends it
    }
  }

  /// What this chunk adds to the message.
  public struct Delta: Sendable, Hashable, Codable {
    public var role: String?
    public var content: String?
    public var toolCalls: [ToolCallDelta]?
    /// The model's refusal to answer (OpenAI's `refusal`), instead of content.
    public var refusal: String?

    public init(role: String? = nil, content: String? = nil, toolCalls: [ToolCallDelta]? = nil, refusal: String? = nil) {
      self.role = role
      self.content = content
      self.toolCalls = toolCalls
      self.refusal = refusal
    }

    enum CodingKeys: String, CodingKey { case role, content, refusal, toolCalls = "tool_calls" }
  }

  /// A piece of a tool call: the first for a call has its `id`, `type` and name.
  public struct ToolCallDelta: Sendable, Hashable, Codable {
    public var index: Int
    public var id: String?
    public var type: String?
    public var function: Function?

    public init(index: Int, id: String? = nil, type: String? = nil, function: Function? = nil) {
      self.index = index
      self.id = id
      self.type = type
      self.function = function
    }

    public struct Function: Sendable, Hashable, Codable {
      public var name: String?
      public var arguments: String?

      public init(name: String? = nil, arguments: String? = nil) {
        self.name = name
        self.arguments = arguments
      }
    }
  }
}

/// `GET /models`: `{"object": "list", "data": [...]}`.
public struct ChatModelList: Sendable, Hashable, Codable {
  public var object: String
  public var data: [ChatModelInfo]

  public init(data: [ChatModelInfo]) {
    self.object = "list"
    self.data = data
  }

  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    object = try container.decodeIfPresent(String.self, forKey: .object) ?? "list"
    data = try container.decode([ChatModelInfo].self, forKey: .data)
  }

  enum CodingKeys: String, CodingKey { case object, data }
}

/// One model: `{"id", "object": "model", "created", "owned_by"}`, and what it reads and writes as
/// OpenRouter and llama-server's router list it (`"architecture": {"input_modalities": ["text",
/// "image"], "output_modalities": ["text"]}`).
public struct ChatModelInfo: Sendable, Hashable, Codable {
  public var id: String
  public var object: String
  public var created: Int
  public var ownedBy: String
  /// The kinds of input and output the model takes; `nil` when the server does not say.
  public var architecture: Architecture?

  /// What a model reads and writes: `"text"`, `"image"`, `"audio"`, ….
  public struct Architecture: Sendable, Hashable, Codable {
    public var inputModalities: [String]
    public var outputModalities: [String]

    public init(inputModalities: [String], outputModalities: [String]) {
      self.inputModalities = inputModalities
      self.outputModalities = outputModalities
    }

    /// Decodes leniently: a missing list is empty.
    public init(from decoder: any Decoder) throws {
      let container = try decoder.container(keyedBy: CodingKeys.self)
      inputModalities = try container.decodeIfPresent([String].self, forKey: .inputModalities) ?? []
      outputModalities = try container.decodeIfPresent([String].self, forKey: .outputModalities) ?? []
    }

    enum CodingKeys: String, CodingKey { case inputModalities = "input_modalities", outputModalities = "output_modalities" }
  }

  public init(id: String, created: Int, ownedBy: String, architecture: Architecture? = nil) {
    self.id = id
    self.object = "model"
    self.created = created
    self.ownedBy = ownedBy
    self.architecture = architecture
  }

  /// Decodes leniently: only `id` is required.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    id = try container.decode(String.self, forKey: .id)
    object = try container.decodeIfPresent(String.self, forKey: .object) ?? "model"
    created = try container.decodeIfPresent(Int.self, forKey: .created) ?? 0
    ownedBy = try container.decodeIfPresent(String.self, forKey: .ownedBy) ?? ""
    architecture = try? container.decodeIfPresent(Architecture.self, forKey: .architecture)
  }

  enum CodingKeys: String, CodingKey { case id, object, created, ownedBy = "owned_by", architecture }
}

/// OpenAI's error envelope: `{"error": {"message", "type", "param", "code"}}`.
public struct OpenAIErrorEnvelope: Sendable, Hashable, Codable {
  public var error: Body

  public init(message: String, type: String, param: String? = nil, code: String? = nil) {
    error = Body(message: message, type: type, param: param, code: code)
  }

  public struct Body: Sendable, Hashable, Codable {
    public var message: String
    public var type: String
    public var param: String?
    public var code: String?

    public func encode(to encoder: any Encoder) throws {
      var container = encoder.container(keyedBy: CodingKeys.self)
      try container.encode(message, forKey: .message)
      try container.encode(type, forKey: .type)
      try container.encode(param, forKey: .param)   // null when absent, as OpenAI sends it
      try container.encode(code, forKey: .code)
    }

    enum CodingKeys: String, CodingKey { case message, type, param, code }
  }
}
