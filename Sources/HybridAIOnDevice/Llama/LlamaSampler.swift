import CLlama
import HybridAI

/// A llama.cpp sampler chain built from ``GenerationOptions``.
final class LlamaSampler {
  /// Used when the options name no sampling mode and no temperature.
  static let defaultTemperature = 0.7
  static let defaultProbabilityThreshold = 0.9

  let chain: UnsafeMutablePointer<llama_sampler>
  /// Greedy sampling takes the arg-max of the logits directly: llama.cpp's sampler would first
  /// copy the whole vocabulary into a candidate array for every token.
  let isGreedy: Bool
  let vocabularySize: Int

  init(options: GenerationOptions, vocabularySize: Int) {
    self.vocabularySize = vocabularySize
    chain = llama_sampler_chain_init(llama_sampler_chain_default_params())
    let temperature = options.temperature ?? Self.defaultTemperature
    let strategy = options.sampling?.strategy
      ?? .nucleus(threshold: Self.defaultProbabilityThreshold, seed: nil)
    switch strategy {
    case _ where temperature <= 0, .greedy:
      isGreedy = true
      add(llama_sampler_init_greedy())
    case .topK(let k, let seed):
      isGreedy = false
      add(llama_sampler_init_top_k(Int32(clamping: k)))
      add(llama_sampler_init_temp(Float(temperature)))
      add(llama_sampler_init_dist(Self.llamaSeed(seed)))
    case .nucleus(let threshold, let seed):
      isGreedy = false
      add(llama_sampler_init_top_p(Float(threshold), 1))
      add(llama_sampler_init_temp(Float(temperature)))
      add(llama_sampler_init_dist(Self.llamaSeed(seed)))
    }
  }

  deinit { llama_sampler_free(chain) }

  /// Picks the next token (and accepts it) from the logits of the batch's token at `index`;
  /// `-1`, the default, is the last evaluated token.
  func sample(_ context: OpaquePointer, at index: Int32 = -1) -> llama_token {
    if isGreedy, vocabularySize > 0, let logits = llama_get_logits_ith(context, index) {
      var best = 0
      var bestLogit = logits[0]
      for index in 1..<vocabularySize where logits[index] > bestLogit {
        best = index
        bestLogit = logits[index]
      }
      return llama_token(best)
    }
    return llama_sampler_sample(chain, context, index)
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
  /// Whether ``LlamaSampler`` would always take the most likely token (greedy sampling, or a
  /// temperature of 0): then llama.cpp may pick it in the graph (backend sampling).
  var isGreedy: Bool {
    if (temperature ?? LlamaSampler.defaultTemperature) <= 0 { return true }
    if case .greedy = sampling?.strategy { return true }
    return false
  }
}
