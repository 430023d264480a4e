import HybridAI

// The server's direction: a legacy text completion becomes HybridAI requests, one per prompt, each
// a ``PromptRendering/plainText`` request (no chat template).

extension CompletionRequest {
  /// OpenAI's default `max_tokens` for a text completion.
  public static let defaultMaximumTokens = 16

  /// How many choices each prompt gets (`n`, 1 when absent).
  public var choiceCount: Int { n ?? 1 }

  /// One request per prompt, in order: the prompt's text continued as it is. Options as Chat
  /// Completions reads them (`temperature` 0 is greedy, `top_p` or a `seed` samples, `stop`, the
  /// penalties, `n` 1…16); `logprobs` N lists N alternatives per token; `max_tokens` is 16 when absent.
  ///
  /// - Throws: ``OpenAIConversionError`` naming the field: token-id prompts, an empty prompt,
  ///   `suffix`, `best_of` other than `n`, `echo` with `logprobs` (the prompt's own log
  ///   probabilities are not computed), values out of range.
  public func generationRequests() throws(OpenAIConversionError) -> [GenerationRequest] {
    guard let texts = prompt.texts else {
      throw .invalidOption(param: "prompt", "must be a string or an array of strings; token ids are not accepted")
    }
    guard !texts.isEmpty else { throw .invalidOption(param: "prompt", "give at least one prompt") }
    if let empty = texts.firstIndex(where: \.isEmpty) {
      throw .invalidOption(param: "prompt", texts.count == 1 ? "the prompt is empty" : "prompt \(empty + 1) of \(texts.count) is empty")
    }
    if suffix != nil { throw .invalidOption(param: "suffix", "insertion (a text after the completion) is not supported") }
    if let bestOf, bestOf != choiceCount { throw .invalidOption(param: "best_of", "only best_of equal to n is supported") }
    if let logprobs, !(0...TokenLogProbability.maximumAlternatives).contains(logprobs) {
      throw .invalidOption(param: "logprobs", "must be between 0 and \(TokenLogProbability.maximumAlternatives)")
    }
    if echo == true, logprobs != nil {
      throw .invalidOption(param: "echo", "the prompt's own log probabilities are not computed: echo with logprobs is not supported")
    }
    if let maxTokens, maxTokens <= 0 { throw .invalidOption(param: "max_tokens", "must be positive") }
    // The options as Chat Completions validates them, the fields renamed back in errors.
    var chat = ChatCompletionRequest(model: model, messages: [], maxTokens: maxTokens ?? Self.defaultMaximumTokens,
                                     temperature: temperature, topP: topP, seed: seed, frequencyPenalty: frequencyPenalty,
                                     presencePenalty: presencePenalty, stop: stop, n: n)
    chat.logprobs = logprobs.map { _ in true }
    chat.topLogprobs = logprobs
    let options: GenerationOptions
    do {
      options = try chat.generationOptions()
    } catch .invalidOption(let param, let message) {
      throw .invalidOption(param: ["max_completion_tokens": "max_tokens", "top_logprobs": "logprobs"][param] ?? param, message)
    } catch {
      throw error
    }
    return texts.map { text in
      GenerationRequest(transcript: Transcript(entries: [.prompt(.init(text: text, options: options))]), options: options,
                        promptRendering: .plainText)
    }
  }
}

extension CompletionLogProbabilities {
  /// The legacy form of a choice's entries; offsets count characters from `offset` (the echoed
  /// prompt's length, or 0).
  public init(_ entries: [TokenLogProbability], offset: Int = 0) {
    var position = offset
    var offsets: [Int] = []
    for entry in entries {
      offsets.append(position)
      position += entry.token.count
    }
    self.init(tokens: entries.map(\.token), tokenLogprobs: entries.map(\.logProbability),
              topLogprobs: entries.map { entry in
                Dictionary(entry.topAlternatives.map { ($0.token, $0.logProbability) }, uniquingKeysWith: { first, _ in first })
              },
              textOffset: offsets)
  }
}
