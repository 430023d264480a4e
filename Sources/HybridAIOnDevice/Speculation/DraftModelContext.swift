import CLlama
import Foundation
import Logging

/// A smaller model with the same vocabulary that proposes the next tokens of a generation
/// (speculative decoding with a draft model): a llama.cpp context of its own on the draft
/// weights, with one sequence for each sequence of the model it drafts for.
///
/// Each draft first brings the draft sequence up to the generation's tokens so far — keeping the
/// longest prefix it already holds, so a follow-up costs only the new tokens — then chooses its
/// most likely next token, greedily, until the draft is long enough or the draft model is less
/// sure than ``SpeculativeDecoding/minimumDraftProbability``. The model drafted for checks the draft as it checks an
/// n-gram draft, so answers are the same with or without it.
///
/// Used on the llama thread of its owner (a ``LlamaConversation`` or a ``BatchScheduler``); not
/// thread-safe. A failed evaluation ends that draft only: drafting never fails a generation.
final class DraftModelContext {
  let weights: LlamaModelWeights
  /// ``SpeculativeDecoding/minimumDraftProbability``.
  private let minimumProbability: Float
  /// Token ids below this are the same token in both models; a draft stops before any other.
  private let sharedVocabularySize: Int
  private let contextSizePerSequence: Int
  private let sequences: Int
  private let batchSize: Int
  private let threads: Int
  private let logger: Logger
  private var context: OpaquePointer?
  private var batch: LlamaBatch?
  /// The tokens each sequence of the draft context holds, in order.
  private var cachedTokens: [llama_seq_id: [llama_token]] = [:]
  /// Tokens the draft model evaluated (catching up and drafting), for statistics and tests.
  private(set) var evaluatedTokens = 0

  /// A draft context on `weights` for a model of `targetVocabularySize` tokens, with `sequences`
  /// sequences of `contextSizePerSequence` tokens (the context is made on first use).
  init(weights: LlamaModelWeights, targetVocabularySize: Int, minimumProbability: Double, contextSizePerSequence: Int,
       sequences: Int = 1, batchSize: Int, threads: Int, logger: Logger) {
    self.weights = weights
    self.minimumProbability = Float(minimumProbability)
    sharedVocabularySize = min(targetVocabularySize, weights.vocabularySize)
    self.contextSizePerSequence = contextSizePerSequence
    self.sequences = max(1, sequences)
    self.batchSize = max(1, batchSize)
    self.threads = threads
    self.logger = logger
  }

  deinit { release() }

  /// Frees the llama.cpp context now (its owner is freeing its own); a later draft makes a new one.
  func release() {
    guard let context else { return }
    LlamaRuntime.checkAlive("llama_free")
    llama_free(context)
    self.context = nil
    batch = nil
    cachedTokens.removeAll()
  }

  /// Up to `length` tokens the draft model expects after `history` (the prompt's text tokens and
  /// the answer so far) in draft sequence `sequence`; empty when it is not sure of the first one,
  /// when the history does not fit its context, or when an evaluation failed (logged).
  func draft(for sequence: llama_seq_id, after history: [llama_token], length: Int) -> [llama_token] {
    guard length > 0, !history.isEmpty, history.count + length < contextSizePerSequence,
          Int(sequence) < sequences else { return [] }
    do {
      let (context, batch) = try contextIfNeeded()
      var row = try catchUp(sequence, to: history, in: context, batch: batch)
      var drafted: [llama_token] = []
      while let logits = llama_get_logits_ith(context, row) {
        let choices = UnsafeBufferPointer(start: logits, count: weights.vocabularySize)
        let token = LargestLogit.index(in: choices)
        guard token < sharedVocabularySize,
              minimumProbability == 0 || Self.probability(ofLargest: choices[token], in: choices) >= minimumProbability
        else { break }
        drafted.append(llama_token(token))
        if drafted.count == length || weights.isEndOfGeneration(llama_token(token)) { break }
        batch.removeAll()
        batch.append(llama_token(token), position: history.count + drafted.count - 1, sequence: sequence, wantsLogits: true)
        try decode(batch, in: context)
        cachedTokens[sequence, default: []].append(llama_token(token))
        row = 0
      }
      return drafted
    } catch {
      forget(sequence)
      logger.debug("the draft model could not evaluate; no draft", metadata: ["seq": "\(sequence)", "error": "\(error)"])
      return []
    }
  }

  /// Brings `sequence` to exactly `history`, evaluating what it does not hold yet (at least the
  /// last token, whose logits start the draft); returns the batch row of those logits.
  private func catchUp(_ sequence: llama_seq_id, to history: [llama_token], in context: OpaquePointer,
                       batch: LlamaBatch) throws(OnDeviceModelError) -> Int32 {
    var cached = cachedTokens[sequence] ?? []
    var shared = 0
    let limit = min(cached.count, history.count - 1)
    while shared < limit, cached[shared] == history[shared] { shared += 1 }
    if shared < cached.count {
      guard llama_memory_seq_rm(llama_get_memory(context), sequence, Int32(shared), -1) else {
        throw .decodeFailed(code: -1)
      }
      cached.removeSubrange(shared...)
    }
    cachedTokens[sequence] = cached
    var lastRow: Int32 = 0
    var start = shared
    while start < history.count {
      let end = min(history.count, start + batchSize)
      batch.removeAll()
      for place in start..<end {
        lastRow = batch.append(history[place], position: place, sequence: sequence, wantsLogits: place == history.count - 1)
      }
      try decode(batch, in: context)
      cachedTokens[sequence, default: []].append(contentsOf: history[start..<end])
      start = end
    }
    return lastRow
  }

  /// Forgets everything `sequence` holds (after a failed evaluation its state is unknown).
  private func forget(_ sequence: llama_seq_id) {
    if let context { llama_memory_seq_rm(llama_get_memory(context), sequence, -1, -1) }
    cachedTokens[sequence] = nil
  }

  private func decode(_ batch: LlamaBatch, in context: OpaquePointer) throws(OnDeviceModelError) {
    let result = llama_decode(context, batch.raw)
    guard result == 0 else { throw .decodeFailed(code: result) }
    evaluatedTokens += batch.count
  }

  private func contextIfNeeded() throws(OnDeviceModelError) -> (OpaquePointer, LlamaBatch) {
    if let context, let batch { return (context, batch) }
    var params = llama_context_default_params()
    params.n_ctx = UInt32(clamping: sequences * contextSizePerSequence)
    params.n_batch = UInt32(batchSize)
    params.n_ubatch = UInt32(batchSize)
    params.n_seq_max = UInt32(sequences)
    params.kv_unified = false
    params.n_threads = Int32(threads)
    params.n_threads_batch = Int32(threads)
    params.no_perf = true
    guard let made = llama_init_from_model(weights.pointer, params) else {
      throw .contextCreationFailed(contextSize: sequences * contextSizePerSequence)
    }
    let batch = LlamaBatch(capacity: batchSize)
    context = made
    self.batch = batch
    logger.debug("created draft model context", metadata: [
      "draftModel": "\(weights.path)", "sequences": "\(sequences)", "contextSizePerSequence": "\(contextSizePerSequence)",
    ])
    return (made, batch)
  }

  /// The softmax probability of the largest logit `largest` of `row`.
  static func probability(ofLargest largest: Float, in row: UnsafeBufferPointer<Float>) -> Float {
    var sum: Float = 0
    for logit in row { sum += expf(logit - largest) }
    return sum > 0 ? 1 / sum : 0
  }
}
