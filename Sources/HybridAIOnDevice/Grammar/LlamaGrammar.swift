import CLlama
import Foundation

/// A GBNF grammar for one generation: which tokens may come next, and the state after each
/// accepted token. Wraps llama.cpp's grammar sampler (`llama_sampler_init_grammar`).
///
/// Cost model. Measured on SmolLM2-135M (49 152 tokens) on this project's 2-core machine, with
/// the grammars of `LlamaGrammarTests` (release build of llama.cpp, machine under load):
///
/// | operation                                   | per token          |
/// |---------------------------------------------|--------------------|
/// | ``allows(_:)`` (one candidate)              | 1-6 µs             |
/// | ``constrain(_:)`` over the whole vocabulary | 3-8 ms mean, up to 13 ms inside free string content |
/// | ``bestAllowedToken(logits:vocabularySize:)`` when the arg-max is rejected | the same as ``constrain(_:)`` |
///
/// Scoring the whole vocabulary costs about as much as decoding a token of this model
/// (~6 ms), so: pick the token as usual first (arg-max or sampled), check it with
/// ``allows(_:)``, and score the whole vocabulary only when it is rejected. In JSON most
/// tokens are forced punctuation or text the model would choose anyway, so rejections are
/// the minority. ``reset()`` parses the grammar text again, as ``init(gbnf:vocab:root:)`` does
/// (sub-millisecond for schema grammars; more for large tool grammars).
///
/// llama.cpp aborts the process when it is made to accept a token the grammar does not allow;
/// ``accept(_:)`` therefore checks first and refuses such tokens. Not thread-safe: use one
/// instance per sequence, from one thread at a time.
final class LlamaGrammar {
  private let sampler: UnsafeMutablePointer<llama_sampler>
  private let vocab: OpaquePointer
  /// A token that ends generation, to ask whether the grammar is complete.
  private let endToken: llama_token?
  /// Scratch candidates for scoring the whole vocabulary.
  private var candidates: [llama_token_data] = []

  /// Parses `gbnf`, starting at the rule `root`. Throws ``OnDeviceModelError/invalidGrammar(_:)``
  /// when llama.cpp rejects it (syntax errors, undefined rules, left recursion; llama.cpp logs
  /// the details).
  ///
  /// With `triggers` the grammar is lazy: it allows anything until the generated text matches
  /// one of the trigger patterns (regular expressions, from the start of the output) or a trigger
  /// token appears, and constrains what follows (a model's own tool-call syntax, see ``ChatRendering``).
  init(gbnf: String, vocab: OpaquePointer, root: String = "root", triggers: LazyGrammarTriggers? = nil) throws(OnDeviceModelError) {
    LlamaRuntime.ensureInitialised()
    guard !gbnf.isEmpty else { throw .invalidGrammar("the grammar is empty") }
    let made: UnsafeMutablePointer<llama_sampler>?
    if let triggers {
      let patterns = triggers.patterns.map { strdup($0) }
      defer { patterns.forEach { free($0) } }
      var constPatterns = patterns.map { UnsafePointer<CChar>($0) }
      made = llama_sampler_init_grammar_lazy_patterns(
        vocab, gbnf, root, &constPatterns, constPatterns.count, triggers.tokens, triggers.tokens.count)
    } else {
      made = llama_sampler_init_grammar(vocab, gbnf, root)
    }
    guard let sampler = made else {
      throw .invalidGrammar("llama.cpp could not parse the grammar or found no rule '\(root)' (see the HybridAI.llama log and standard error)")
    }
    self.sampler = sampler
    self.vocab = vocab
    let ends = [llama_vocab_eot(vocab), llama_vocab_eos(vocab)]
    endToken = ends.first { $0 != LLAMA_TOKEN_NULL && llama_vocab_is_eog(vocab, $0) }
  }

  deinit { llama_sampler_free(sampler) }

  /// Whether the grammar allows `token` next. Cheap: it checks this token only.
  func allows(_ token: llama_token) -> Bool {
    var candidate = llama_token_data(id: token, logit: 0, p: 0)
    withUnsafeMutablePointer(to: &candidate) { pointer in
      var array = llama_token_data_array(data: pointer, size: 1, selected: -1, sorted: false)
      llama_sampler_apply(sampler, &array)
    }
    return candidate.logit.isFinite
  }

  /// Whether the text so far is a complete match, so generation may end here (the grammar
  /// allows an end-of-generation token). `false` when the vocabulary has no such token.
  var isEndAllowed: Bool {
    guard let endToken else { return false }
    return allows(endToken)
  }

  /// Whether the text so far is complete and nothing more may follow: no token but an
  /// end-of-generation one is allowed. Scores the whole vocabulary, so it costs as much as
  /// ``constrain(_:)``; prefer ``isEndAllowed`` after each token.
  func isFinished(vocabularySize: Int) -> Bool {
    guard isEndAllowed else { return false }
    prepareCandidates(vocabularySize: vocabularySize) { _ in 0 }
    applyToCandidates()
    return !candidates.contains { $0.logit.isFinite && !llama_vocab_is_eog(vocab, $0.id) }
  }

  /// Advances the grammar past `token`. Returns `false`, and changes nothing, when the grammar
  /// does not allow the token (llama.cpp would abort). An allowed end-of-generation token
  /// leaves the state as it is.
  @discardableResult
  func accept(_ token: llama_token) -> Bool {
    guard allows(token) else { return false }
    llama_sampler_accept(sampler, token)
    return true
  }

  /// Sets the logit of every token the grammar does not allow to `-infinity`, in place (for
  /// sampling from the allowed tokens). Costs a pass over the candidates through llama.cpp's
  /// grammar: milliseconds for a whole vocabulary.
  func constrain(_ candidates: inout llama_token_data_array) {
    llama_sampler_apply(sampler, &candidates)
  }

  /// The allowed token with the highest logit (greedy decoding under the grammar), or `nil`
  /// when the grammar allows no token at all. Checks the arg-max first and scores the whole
  /// vocabulary only when the grammar rejects it.
  func bestAllowedToken(logits: UnsafePointer<Float>, vocabularySize: Int) -> llama_token? {
    guard vocabularySize > 0 else { return nil }
    var best = 0
    for index in 1..<vocabularySize where logits[index] > logits[best] { best = index }
    if allows(llama_token(best)) { return llama_token(best) }
    prepareCandidates(vocabularySize: vocabularySize) { logits[$0] }
    applyToCandidates()
    var choice: llama_token_data?
    for candidate in candidates where candidate.logit.isFinite && candidate.logit > (choice?.logit ?? -.infinity) {
      choice = candidate
    }
    return choice?.id
  }

  /// Back to the start of the grammar (llama.cpp parses the grammar text again).
  func reset() {
    llama_sampler_reset(sampler)
  }

  private func prepareCandidates(vocabularySize: Int, logit: (Int) -> Float) {
    if candidates.count != vocabularySize {
      candidates = (0..<vocabularySize).map { llama_token_data(id: llama_token($0), logit: 0, p: 0) }
    }
    for index in 0..<vocabularySize {
      candidates[index].id = llama_token(index)
      candidates[index].logit = logit(index)
    }
  }

  private func applyToCandidates() {
    candidates.withUnsafeMutableBufferPointer { buffer in
      var array = llama_token_data_array(data: buffer.baseAddress, size: buffer.count, selected: -1, sorted: false)
      llama_sampler_apply(sampler, &array)
    }
  }
}

/// When a lazy ``LlamaGrammar`` starts to constrain: regular expressions over the generated text
/// (matched from its start; the grammar reads from the first group) and tokens.
struct LazyGrammarTriggers: Sendable, Hashable {
  var patterns: [String]
  var tokens: [llama_token]
}
