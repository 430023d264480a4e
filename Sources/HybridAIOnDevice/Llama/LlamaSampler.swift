import CLlama
import Foundation
import HybridAI

/// A llama.cpp sampler chain built from ``GenerationOptions``.
final class LlamaSampler {
  /// Used when the options name no sampling mode and no temperature.
  static let defaultTemperature = 0.7
  static let defaultProbabilityThreshold = 0.9
  /// The most likely tokens the default sampling keeps before its probability threshold, as
  /// Gemini's API (top-k 64, then top-p) and llama-server (top-k 40) do by default: a top-p cut
  /// over the whole vocabulary first turns every token into a probability (~1.3 ms a row for
  /// SmolLM2's 49,152 tokens on the 2-core VM; with top-k 64 first ~0.37 ms).
  static let defaultTopK = 64

  let chain: UnsafeMutablePointer<llama_sampler>
  /// Greedy sampling takes the arg-max of the logits directly: llama.cpp's sampler would first
  /// copy the whole vocabulary into a candidate array for every token.
  let isGreedy: Bool
  /// Whether the chain remembers the answer's tokens (the penalties): then every token chosen
  /// must be given to ``accept(_:)``.
  let hasState: Bool
  let vocabularySize: Int
  /// The candidate array of ``withCandidates(_:_:)``.
  private let candidates: UnsafeMutableBufferPointer<llama_token_data>

  init(options: GenerationOptions, vocabulary: OpaquePointer, vocabularySize: Int) {
    self.vocabularySize = vocabularySize
    candidates = .allocate(capacity: vocabularySize)
    chain = llama_sampler_chain_init(llama_sampler_chain_default_params())
    // Penalties change the logits, so with them even greedy decoding goes through the chain.
    hasState = options.hasPenalties
    isGreedy = options.isGreedy
    let repetition = options.repetitionPenalty ?? 1, frequency = options.frequencyPenalty ?? 0
    let presence = options.presencePenalty ?? 0
    if repetition != 1 || frequency != 0 || presence != 0 {
      add(llama_sampler_init_penalties(Int32(clamping: vocabularySize), Int32(GenerationOptions.penaltyWindow),
                                       Float(repetition), Float(frequency), Float(presence)))
    }
    if let loop = options.loopPenalty, loop.isActive {
      add(Self.loopSampler(loop, vocabulary: vocabulary))
    }
    let temperature = options.temperature ?? Self.defaultTemperature
    let strategy = options.sampling?.strategy
      ?? .nucleus(threshold: Self.defaultProbabilityThreshold, seed: nil)
    switch strategy {
    case _ where temperature <= 0, .greedy:
      add(llama_sampler_init_greedy())
    case .topK(let k, let seed):
      add(llama_sampler_init_top_k(Int32(clamping: k)))
      add(llama_sampler_init_temp(Float(temperature)))
      add(llama_sampler_init_dist(Self.llamaSeed(seed)))
    case .nucleus(let threshold, let seed):
      if options.sampling == nil { add(llama_sampler_init_top_k(Int32(Self.defaultTopK))) }
      add(llama_sampler_init_top_p(Float(threshold), 1))
      add(llama_sampler_init_temp(Float(temperature)))
      add(llama_sampler_init_dist(Self.llamaSeed(seed)))
    }
  }

  deinit {
    llama_sampler_free(chain)
    candidates.deallocate()
  }

  /// Picks the next token from the logits of the batch's token at `index` (`-1`, the default, is
  /// the last evaluated token) and makes it part of the answer: for a request without a grammar,
  /// whose first choice is always kept. llama.cpp's own `llama_sampler_sample` does the work.
  func sampleAndAccept(_ context: OpaquePointer, at index: Int32 = -1) -> llama_token {
    if isGreedy, let token = argMax(context, at: index) { return token }
    return llama_sampler_sample(chain, context, index)
  }

  /// Picks the next token like ``sampleAndAccept(_:at:)`` without making it part of the answer
  /// (a grammar may still reject it): give the token finally kept to ``accept(_:)``.
  func sample(_ context: OpaquePointer, at index: Int32 = -1) -> llama_token {
    guard let logits = llama_get_logits_ith(context, index) else { return llama_sampler_sample(chain, context, index) }
    return choice(fromRow: logits)
  }

  /// The chain's choice from one row of `vocabularySize` logits, not accepted (give the token kept
  /// to ``accept(_:)``): what ``sample(_:at:)`` picks for that row, without touching the context,
  /// so rows of different requests may be sampled on different threads (each chain and candidate
  /// array is this sampler's own).
  func choice(fromRow logits: UnsafePointer<Float>) -> llama_token {
    if isGreedy { return llama_token(LargestLogit.index(in: UnsafeBufferPointer(start: logits, count: vocabularySize))) }
    return withCandidates(logits) { choose(from: &$0) }
  }

  /// The most likely token of the raw logits, or `nil` when there are none.
  private func argMax(_ context: OpaquePointer, at index: Int32) -> llama_token? {
    guard vocabularySize > 0, let logits = llama_get_logits_ith(context, index) else { return nil }
    return llama_token(LargestLogit.index(in: UnsafeBufferPointer(start: logits, count: vocabularySize)))
  }

  /// Runs `body` on every token with its logit, in a candidate array reused from token to token
  /// (filling it is the cost of a pass over the vocabulary, not an allocation).
  func withCandidates<Result>(_ logits: UnsafePointer<Float>, _ body: (inout llama_token_data_array) -> Result) -> Result {
    let buffer = candidates
    for index in 0..<vocabularySize {
      buffer[index] = llama_token_data(id: llama_token(index), logit: logits[index], p: 0)
    }
    var array = llama_token_data_array(data: buffer.baseAddress, size: vocabularySize, selected: -1, sorted: false)
    return body(&array)
  }

  /// The chain's choice among `candidates` (not accepted).
  func choose(from candidates: inout llama_token_data_array) -> llama_token {
    llama_sampler_apply(chain, &candidates)
    let selected = candidates.selected >= 0 ? Int(candidates.selected) : 0
    return candidates.data[selected].id
  }

  /// Makes `token` part of the answer for the samplers that remember it (the penalties).
  func accept(_ token: llama_token) {
    if hasState { llama_sampler_accept(chain, token) }
  }

  /// llama.cpp's DRY sampler for `loop` (it copies the breakers).
  private static func loopSampler(_ loop: LoopPenalty, vocabulary: OpaquePointer) -> UnsafeMutablePointer<llama_sampler>? {
    let breakers = loop.sequenceBreakers.map { strdup($0) }
    defer { breakers.forEach { free($0) } }
    var pointers = breakers.map { UnsafePointer($0) }
    return llama_sampler_init_dry(vocabulary, Float(loop.multiplier), Float(loop.base), Int32(clamping: loop.allowedLength),
                                  Int32(clamping: loop.window), &pointers, pointers.count)
  }

  private func add(_ sampler: UnsafeMutablePointer<llama_sampler>?) {
    llama_sampler_chain_add(chain, sampler)
  }

  /// llama.cpp seeds are 32-bit and `LLAMA_DEFAULT_SEED` (0xFFFFFFFF) means "random".
  private static func llamaSeed(_ seed: UInt64?) -> UInt32 {
    guard let seed else { return UInt32(LLAMA_DEFAULT_SEED) }
    let folded = UInt32(truncatingIfNeeded: seed ^ (seed >> 32))
    return folded == UInt32(LLAMA_DEFAULT_SEED) ? folded - 1 : folded
  }
}

extension GenerationOptions {
  /// Whether ``LlamaSampler`` would always take the most likely token of the raw logits (greedy
  /// sampling, or a temperature of 0, and no penalties): then llama.cpp may pick it in the graph
  /// (backend sampling).
  var isGreedy: Bool {
    if hasPenalties { return false }
    if (temperature ?? LlamaSampler.defaultTemperature) <= 0 { return true }
    if case .greedy = sampling?.strategy { return true }
    return false
  }
}
