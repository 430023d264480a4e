import CLlama

/// The keys and values of sequences that had to make room for other requests, kept in memory as
/// llama.cpp sequence states (`llama_state_seq_get_data`), so that a conversation or prompt that
/// returns later evaluates only what is new (as llama-server's prompt cache in RAM does). The least
/// recently stored entry goes first once ``capacity`` bytes are held.
struct PromptStateCache {
  /// A saved sequence: the tokens its keys and values stand for, and llama.cpp's state of them.
  struct Entry {
    let tokens: [llama_token]
    let state: [UInt8]

    /// Whether this entry can stand in for one holding `tokens`: they are its start and at least
    /// half of it, so a prompt that continues them is given them back from this entry as it would
    /// be from theirs (a saved state is restored for a prompt sharing at least half of it; see
    /// `BatchScheduler.sequenceForRequest`).
    func stands(for tokens: [llama_token]) -> Bool {
      self.tokens.count >= tokens.count && self.tokens.count <= 2 * tokens.count && self.tokens.starts(with: tokens)
    }
  }

  /// The most bytes of states held; 0 keeps nothing.
  let capacity: Int
  /// Oldest first.
  private(set) var entries: [Entry] = []
  private(set) var bytes = 0

  init(capacity: Int) {
    self.capacity = max(0, capacity)
  }

  /// Whether an entry already stands for `tokens`, so that saving them would add nothing (checked
  /// before the state is copied out of llama.cpp, which on a GPU is a transfer from device memory:
  /// many sequences answering the same prompt hold the same tokens). See ``Entry/stands(for:)``.
  func covers(_ tokens: [llama_token]) -> Bool {
    entries.contains { $0.stands(for: tokens) }
  }

  /// Keeps `entry`, dropping the entries it stands for (see ``Entry/stands(for:)``) and then the
  /// oldest entries it needs room from. An entry larger than the whole capacity is not kept.
  mutating func insert(_ entry: Entry) {
    guard entry.state.count <= capacity else { return }
    for index in entries.indices.reversed() where entry.stands(for: entries[index].tokens) { remove(at: index) }
    while bytes + entry.state.count > capacity, !entries.isEmpty { remove(at: 0) }
    entries.append(entry)
    bytes += entry.state.count
  }

  /// The entry sharing the longest start with `prompt`, among those `accepts(shared, entry)`
  /// allows, and how many tokens it shares.
  func bestMatch(for prompt: [llama_token], accepts: (Int, Entry) -> Bool) -> (index: Int, shared: Int)? {
    var best: (index: Int, shared: Int)?
    for (index, entry) in entries.enumerated() {
      let shared = entry.tokens.reusablePrefixLength(for: prompt)
      if shared > best?.shared ?? 0, accepts(shared, entry) { best = (index, shared) }
    }
    return best
  }

  /// Removes and returns the entry at `index` (it is going back into a sequence).
  mutating func take(at index: Int) -> Entry {
    let entry = entries[index]
    remove(at: index)
    return entry
  }

  private mutating func remove(at index: Int) {
    bytes -= entries[index].state.count
    entries.remove(at: index)
  }
}
