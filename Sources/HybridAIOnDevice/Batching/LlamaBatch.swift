import CLlama

/// A `llama_batch` allocated once and refilled for every decode step: tokens of several
/// sequences, each with its position, its sequence id and whether its logits are wanted.
///
/// Owned by one ``BatchScheduler``; not thread-safe.
final class LlamaBatch {
  /// The most tokens the batch holds.
  let capacity: Int
  private(set) var raw: llama_batch

  init(capacity: Int) {
    self.capacity = capacity
    raw = llama_batch_init(Int32(capacity), 0, 1)
  }

  deinit { llama_batch_free(raw) }

  /// Tokens in the batch now.
  var count: Int { Int(raw.n_tokens) }

  /// Room left.
  var remaining: Int { capacity - count }

  /// Empties the batch (the memory stays allocated).
  func removeAll() { raw.n_tokens = 0 }

  /// Appends a token; returns its index in the batch, which is where its logits will be
  /// (`llama_get_logits_ith`) when `wantsLogits` is set.
  @discardableResult
  func append(_ token: llama_token, position: Int, sequence: llama_seq_id, wantsLogits: Bool) -> Int32 {
    precondition(count < capacity, "llama batch overflow")
    let index = Int(raw.n_tokens)
    raw.token[index] = token
    raw.pos[index] = llama_pos(position)
    raw.n_seq_id[index] = 1
    raw.seq_id[index]![0] = sequence
    raw.logits[index] = wantsLogits ? 1 : 0
    raw.n_tokens += 1
    return Int32(index)
  }
}
