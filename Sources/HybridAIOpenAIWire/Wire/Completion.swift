/// A request to OpenAI's legacy `POST completions`: continue a text (no chat template). What
/// evaluation harnesses, code-completion plug-ins and older SDKs send to llama-server, vLLM and Ollama.
public struct CompletionRequest: Sendable, Hashable, Codable {
  public var model: String
  /// The text to continue, or several (each gets its own `n` choices).
  public var prompt: TextsOrTokens
  /// Tokens per choice; 16 when absent, as OpenAI's.
  public var maxTokens: Int?
  public var temperature: Double?
  public var topP: Double?
  public var n: Int?
  public var stream: Bool?
  public var streamOptions: ChatCompletionRequest.StreamOptions?
  public var stop: ChatStop?
  public var seed: Int64?
  /// The most likely tokens listed at each position (0…20); `nil` for no log probabilities.
  public var logprobs: Int?
  /// Put the prompt before each choice's text.
  public var echo: Bool?
  /// Text after the insertion point (not supported: a 400).
  public var suffix: String?
  /// Choices generated to keep the best `n` of (only `n` itself is supported).
  public var bestOf: Int?
  public var frequencyPenalty: Double?
  public var presencePenalty: Double?
  public var user: String?

  public init(model: String, prompt: TextsOrTokens, maxTokens: Int? = nil, temperature: Double? = nil, topP: Double? = nil,
              n: Int? = nil, stream: Bool? = nil, stop: ChatStop? = nil, seed: Int64? = nil, logprobs: Int? = nil,
              echo: Bool? = nil) {
    self.model = model
    self.prompt = prompt
    self.maxTokens = maxTokens
    self.temperature = temperature
    self.topP = topP
    self.n = n
    self.stream = stream
    self.stop = stop
    self.seed = seed
    self.logprobs = logprobs
    self.echo = echo
  }

  enum CodingKeys: String, CodingKey {
    case model, prompt, temperature, n, stream, stop, seed, logprobs, echo, suffix, user
    case maxTokens = "max_tokens", topP = "top_p", streamOptions = "stream_options", bestOf = "best_of"
    case frequencyPenalty = "frequency_penalty", presencePenalty = "presence_penalty"
  }
}

/// A whole text completion (`object: "text_completion"`), and each streamed chunk of one.
public struct Completion: Sendable, Hashable, Codable {
  public var id: String
  public var object: String
  public var created: Int
  public var model: String
  public var choices: [Choice]
  public var usage: ChatUsage?

  public init(id: String, created: Int, model: String, choices: [Choice], usage: ChatUsage? = nil) {
    self.id = id
    self.object = "text_completion"
    self.created = created
    self.model = model
    self.choices = choices
    self.usage = usage
  }

  /// One choice: its text (a piece of it when streamed) and why it ended (`stop`, `length`).
  public struct Choice: Sendable, Hashable, Codable {
    public var text: String
    public var index: Int
    public var logprobs: CompletionLogProbabilities?
    public var finishReason: String?

    public init(text: String, index: Int, logprobs: CompletionLogProbabilities? = nil, finishReason: String? = nil) {
      self.text = text
      self.index = index
      self.logprobs = logprobs
      self.finishReason = finishReason
    }

    /// Always writes `logprobs` and `finish_reason`, `null` when absent, as OpenAI's do.
    public func encode(to encoder: any Encoder) throws {
      var container = encoder.container(keyedBy: CodingKeys.self)
      try container.encode(text, forKey: .text)
      try container.encode(index, forKey: .index)
      try container.encode(logprobs, forKey: .logprobs)
      try container.encode(finishReason, forKey: .finishReason)
    }

    enum CodingKeys: String, CodingKey { case text, index, logprobs, finishReason = "finish_reason" }
  }
}

/// A text completion's log probabilities, in the legacy form: parallel lists by token.
public struct CompletionLogProbabilities: Sendable, Hashable, Codable {
  public var tokens: [String]
  public var tokenLogprobs: [Double?]
  /// The most likely tokens at each position, by their text.
  public var topLogprobs: [[String: Double]?]
  /// Where each token starts in the choice's text, in characters.
  public var textOffset: [Int]

  public init(tokens: [String], tokenLogprobs: [Double?], topLogprobs: [[String: Double]?], textOffset: [Int]) {
    self.tokens = tokens
    self.tokenLogprobs = tokenLogprobs
    self.topLogprobs = topLogprobs
    self.textOffset = textOffset
  }

  enum CodingKeys: String, CodingKey {
    case tokens, tokenLogprobs = "token_logprobs", topLogprobs = "top_logprobs", textOffset = "text_offset"
  }
}
