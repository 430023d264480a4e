import CLlama
import HybridAI

/// Chooses each next token of one generation: the sampler's choice, constrained by the request's
/// grammar when it has one.
///
/// Constrained decoding is kept cheap by checking the token the sampler picked first and scoring
/// the whole vocabulary against the grammar only when the grammar rejects it (GUIDE §4: scoring
/// SmolLM2's 49k tokens costs several milliseconds, checking one token a few microseconds). For
/// sampling this gives exactly the constrained distribution: a token the grammar allows is kept
/// with its own probability, and a rejected draw is redrawn from the allowed tokens only.
final class TokenSelector {
  private let sampler: LlamaSampler
  private var grammar: LlamaGrammar?
  private let weights: LlamaModelWeights
  /// Drop the grammar once a free-text answer has started (it accepts anything from there):
  /// decided by the first token.
  private var releasesGrammarAfterFirstToken: Bool
  /// Tokens the grammar rejected (each cost a pass over the whole vocabulary); for logs and benchmarks.
  private(set) var rejectedTokens = 0

  init(options: GenerationOptions, guidance: DecodingGuidance?, weights: LlamaModelWeights) throws(OnDeviceModelError) {
    self.weights = weights
    sampler = LlamaSampler(options: options, vocabulary: weights.vocab, vocabularySize: weights.vocabularySize)
    if let guidance, !guidance.grammar.isEmpty {
      let grammar = try LlamaGrammar(gbnf: guidance.grammar, vocab: weights.vocab, triggers: guidance.lazyTriggers)
      if let prefill = guidance.grammarPrefill, !prefill.isEmpty {
        // Tokens the grammar may not expect are refused, not fed (an optional prefix).
        for token in (try? weights.tokenize(prefill, addSpecial: false)) ?? [] { grammar.accept(token) }
      }
      self.grammar = grammar
    }
    releasesGrammarAfterFirstToken = guidance?.answerIsFreeText ?? false
  }

  /// Whether output is still constrained.
  var isConstrained: Bool { grammar != nil }

  /// Whether ``next(_:at:)`` is the position of the largest logit and changes nothing (greedy,
  /// no grammar), so a caller may find that position itself (``LargestLogit``).
  var choosesLargestLogit: Bool { grammar == nil && sampler.isGreedy }

  /// The sampler alone when no grammar constrains the choice: its ``LlamaSampler/choice(fromRow:)``
  /// is then this selector's whole choice (give the token to ``accept(_:)``).
  var unconstrainedSampler: LlamaSampler? { grammar == nil ? sampler : nil }

  /// Makes a token chosen by ``unconstrainedSampler`` part of the answer.
  func accept(_ token: llama_token) {
    sampler.accept(token)
  }

  /// The next token from the logits of the batch's token at `index` (`-1`: the last one).
  func next(_ context: OpaquePointer, at index: Int32 = -1) -> llama_token {
    guard grammar != nil else { return sampler.sampleAndAccept(context, at: index) }
    let token = constrainedChoice(context, at: index)
    sampler.accept(token)
    return token
  }

  /// The sampler's choice among the tokens the grammar allows (not yet accepted by the sampler).
  private func constrainedChoice(_ context: OpaquePointer, at index: Int32) -> llama_token {
    guard let grammar else { return sampler.sample(context, at: index) }
    var token = sampler.sample(context, at: index)
    if !grammar.allows(token) {
      rejectedTokens += 1
      token = sampler.sampleAllowed(context, at: index, by: grammar)
      // Nothing allowed (a grammar that cannot go on): end the answer rather than break the grammar.
      if !grammar.allows(token) { return weights.endOfGenerationToken }
    }
    // The end is never fed to the grammar: llama.cpp aborts when it gets one the grammar forbids,
    // and generation stops here anyway.
    if weights.isEndOfGeneration(token) { return token }
    grammar.accept(token)
    if releasesGrammarAfterFirstToken {
      releasesGrammarAfterFirstToken = false
      if weights.bytes(of: token).first != UInt8(ascii: "<") { self.grammar = nil }
    }
    return token
  }
}
