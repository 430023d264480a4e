import CLlama

/// How a ``BatchScheduler`` gives a new request a sequence, and the prompt starts it reuses: the
/// sequence whose cache its prompt continues, a shared start copied from another sequence (free,
/// or answering in the batch), a saved state, or none; ids kept consecutive; with backend
/// sampling, a sequence whose sampler chain suits the request.
extension BatchScheduler {
  /// The free sequence for a prompt and how many of its first tokens it will not evaluate: those
  /// its sequence already holds (``sequenceHoldingPrefix(of:wantsChain:)``), or, when a sequence of the batch
  /// is answering or evaluating a prompt that starts the same way for longer (the same system
  /// prompt, or the same prompt, arriving together), those copied from it — at once when it holds
  /// them, else once it does (`.awaiting`: requests that arrive together evaluate a shared start
  /// once, not once each). Always leaves at least one prompt token to evaluate. `wantsChain`:
  /// whether the request's tokens are picked in llama.cpp's graph (see ``leastValuableFreeID(wantsChain:)``).
  func sequenceForRequest(_ prompt: [llama_token], wantsChain: Bool) -> SequenceChoice {
    guard settings.reusesPromptPrefixes else { return (freeSequenceIDs[0], 0, .own) }
    let held = sequenceHoldingPrefix(of: prompt, wantsChain: wantsChain)
    guard let running = runningSequenceSharingStart(with: prompt), running.shared > held.reused else { return held }
    guard running.sequence.position >= running.shared else {
      return (leastValuableFreeID(wantsChain: wantsChain), running.shared, .awaiting(running.sequence))
    }
    statistics.promptStartsShared += 1
    return (leastValuableFreeID(wantsChain: wantsChain), running.shared, .copy(from: running.sequence.id))
  }

  /// The sequence in the batch whose prompt shares the longest start with `prompt`, at least
  /// ``minimumCopiedPrefix`` tokens (one that waits for another's start itself does not count:
  /// that other one does).
  func runningSequenceSharingStart(with prompt: [llama_token]) -> (sequence: BatchedSequence, shared: Int)? {
    var found: (sequence: BatchedSequence, shared: Int)?
    for sequence in active where sequence.awaitedPrefix == nil {
      let shared = sequence.request.promptTokens.reusablePrefixLength(for: prompt)
      if shared >= Self.minimumCopiedPrefix, shared > found?.shared ?? 0 { found = (sequence, shared) }
    }
    return found
  }

  /// The free sequence whose cache the prompt continues, and how many tokens of it it keeps.
  ///
  /// The sequence whose cache the prompt continues — it shares at least half
  /// of what the sequence holds (the next turn of its conversation), or the whole prompt but its
  /// last token (the same prompt again) — the longest such match first. When none does, the
  /// caches are kept for the requests they match: an empty sequence, else the one unused longest;
  /// and when another free sequence shares a longer start with the prompt (a system prompt, at
  /// least ``minimumCopiedPrefix`` tokens), its keys and values are copied from there. A state in
  /// the ``PromptStateCache`` that the prompt continues further than any sequence is restored.
  /// Like llama-server's slot choice by prompt similarity, this keeps two interleaved
  /// conversations from evicting each other's cache just because they share a system prompt.
  /// ``keepingIDsConsecutive(_:wantsChain:)`` may then move the choice to another id.
  func sequenceHoldingPrefix(of prompt: [llama_token], wantsChain: Bool) -> SequenceChoice {
    func continues(_ shared: Int, _ cachedCount: Int) -> Bool {
      shared > 0 && (shared * 2 >= cachedCount || shared == prompt.count - 1)
    }
    var sharedByID: [llama_seq_id: Int] = [:]
    var best: (id: llama_seq_id, shared: Int)?
    var longest: (id: llama_seq_id, shared: Int)?
    for id in freeSequenceIDs {
      guard let cached = retainedTokens[id] else { continue }
      let shared = cached.reusablePrefixLength(for: prompt)
      sharedByID[id] = shared
      if shared > longest?.shared ?? 0 { longest = (id, shared) }
      if continues(shared, cached.count), shared > best?.shared ?? 0 { best = (id, shared) }
    }
    let saved = promptStates.bestMatch(for: prompt) { continues($0, $1.tokens.count) }
    if let best, best.shared >= saved?.shared ?? 0 { return (best.id, best.shared, .own) }
    let id = leastValuableFreeID(wantsChain: wantsChain)
    if let saved { return (id, saved.shared, .restore(entry: saved.index)) }
    let own = sharedByID[id] ?? 0
    if let longest, longest.id != id, longest.shared >= Self.minimumCopiedPrefix, longest.shared > own {
      return (id, longest.shared, .copy(from: longest.id))
    }
    return (id, own, .own)
  }

  /// A free sequence whose cache matters least: an empty one, else the one unused longest. With
  /// backend sampling, first among the sequences whose sampler suits the request (`wantsChain`: a
  /// chain attached for a greedy request, none for another): attaching or detaching one makes
  /// llama.cpp reserve its graphs again (~4 ms on 2 CPU cores, and on a GPU its CUDA graphs are
  /// captured anew), which at one stream of distinct prompts was paid by every request as they
  /// went round the empty sequences — more than an old cache is worth where prompts evaluate fast.
  func leastValuableFreeID(wantsChain: Bool) -> llama_seq_id {
    let suiting = settings.backendSampling ? freeSequenceIDs.filter { suitsSampler($0, wantsChain: wantsChain) } : []
    let pool = suiting.isEmpty ? freeSequenceIDs : suiting
    return pool.first { retainedTokens[$0] == nil } ?? pool.min { lastReleased[$0, default: 0] < lastReleased[$1, default: 0] }!
  }

  /// Whether sequence `id` has a backend sampler chain attached exactly when the request wants one.
  func suitsSampler(_ id: llama_seq_id, wantsChain: Bool) -> Bool {
    (backendSamplers[id] != nil) == wantsChain
  }

  /// Whether `request`'s tokens are picked in llama.cpp's graph: with backend sampling, a greedy
  /// request without a grammar that does not ask for log probabilities (they need the logits).
  func wantsBackendSampling(_ request: BatchRequest) -> Bool {
    settings.backendSampling && request.guidance == nil && request.options.isGreedy && request.options.logProbabilities == nil
  }

  /// Empties `sequence`'s id and lets it wait for the first `length` tokens of `source`'s prompt
  /// (``copyAwaitedPrefixes()``); returns the tokens it holds now: none.
  func awaitPrefix(of sequence: BatchedSequence, from source: BatchedSequence, length: Int) -> Int {
    emptySequence(sequence.id)
    sequence.awaitedPrefix = (source, length)
    return 0
  }

  /// Gives each sequence that waits for another's prompt start (``BatchedSequence/awaitedPrefix``)
  /// that start once the other holds it. When the other ended first, its start is copied from
  /// the cache it left, if its sequence still holds it; otherwise (a failed decode, a cancelled
  /// request, its sequence taken) the prompt is evaluated here after all.
  func copyAwaitedPrefixes() {
    for sequence in active {
      guard let (source, length) = sequence.awaitedPrefix else { continue }
      if active.contains(where: { $0 === source }) {
        guard source.position >= length else { continue }   // still evaluating it
        sequence.position = copyCachedPrefix(from: source.id, to: sequence.id, length: length)
      } else if freeSequenceIDs.contains(source.id), let left = retainedTokens[source.id],
                left.reusablePrefixLength(for: sequence.request.promptTokens) >= length {
        sequence.position = copyCachedPrefix(from: source.id, to: sequence.id, length: length)
      }
      sequence.awaitedPrefix = nil
      sequence.reusedPromptTokens = sequence.position
      if sequence.position > 0 { statistics.promptStartsShared += 1 }
      logger.debug("shared prompt start", metadata: [
        "seq": "\(sequence.id)", "from": "\(source.id)", "tokens": "\(sequence.position)", "wanted": "\(length)",
      ])
    }
  }

  /// `choice`, or the same start in another free sequence when `choice.id` would split the
  /// sequences in use into more runs of consecutive ids than that one does: llama.cpp computes
  /// one pass per run (see ``BatchStatistics/splitCalls``; measured on 2 CPU cores, SmolLM2-135M:
  /// two sequences at ids 0 and 2 took 24.6–27.0 ms a step against 17.6–20.0 at 0 and 1). The
  /// cached start comes along: a sequence's own cache is copied (it stays where it was, for a
  /// later request), a copy or a saved state goes to the other id instead. The copy moves a
  /// whole buffer once, about a dozen tokens' evaluation on a CPU; the split would cost a pass in
  /// every step of the answer.
  func keepingIDsConsecutive(_ choice: SequenceChoice, wantsChain: Bool) -> SequenceChoice {
    let inUse = active.map(\.id)
    guard !inUse.isEmpty else { return choice }
    let runsWithChoice = Self.consecutiveRuns(in: inUse + [choice.id])
    // Of the ids that split least, one whose sampler suits the request (see leastValuableFreeID).
    func rank(_ id: llama_seq_id) -> (Int, Int) {
      (Self.consecutiveRuns(in: inUse + [id]), settings.backendSampling && !suitsSampler(id, wantsChain: wantsChain) ? 1 : 0)
    }
    guard runsWithChoice > 1,
          let better = freeSequenceIDs.min(by: { rank($0) < rank($1) }),
          Self.consecutiveRuns(in: inUse + [better]) < runsWithChoice else { return choice }
    return moving(choice, to: better)
  }

  /// `choice`'s start given to free sequence `id` instead: a sequence's own cache is copied (it
  /// stays where it was, for a later request), a copy or a saved state goes to `id`.
  func moving(_ choice: SequenceChoice, to id: llama_seq_id) -> SequenceChoice {
    switch choice.start {
    case .own where choice.reused == 0: (id, 0, .own)
    case .own: (id, choice.reused, .copy(from: choice.id))
    case .copy(let source) where source == id: (id, choice.reused, .own)
    case .copy, .restore, .awaiting: (id, choice.reused, choice.start)
    }
  }

  /// With backend sampling, `choice` moved to a free sequence whose sampler suits the request when
  /// its own does not (a greedy request's cache match in a sequence without a chain): attaching
  /// or detaching a chain makes llama.cpp reserve its graphs again, while the cached start is
  /// copied along on the device (or, shorter than ``minimumCopiedPrefix``, evaluated).
  func suitingSampler(_ choice: SequenceChoice, of prompt: [llama_token], wantsChain: Bool) -> SequenceChoice {
    guard settings.backendSampling, !suitsSampler(choice.id, wantsChain: wantsChain) else { return choice }
    let other = leastValuableFreeID(wantsChain: wantsChain)
    guard other != choice.id, suitsSampler(other, wantsChain: wantsChain) else { return choice }
    if case .own = choice.start, choice.reused < Self.minimumCopiedPrefix {
      return (other, retainedTokens[other]?.reusablePrefixLength(for: prompt) ?? 0, .own)
    }
    return moving(choice, to: other)
  }

  /// How many runs of consecutive values `ids` form (`[0, 1, 3]`: two); 0 when empty.
  static func consecutiveRuns(in ids: [llama_seq_id]) -> Int {
    let sorted = Set(ids).sorted()
    return zip(sorted, sorted.dropFirst()).reduce(sorted.isEmpty ? 0 : 1) { $0 + ($1.1 == $1.0 + 1 ? 0 : 1) }
  }

  /// The free sequence a new request takes, how many of its first tokens it will not evaluate, and
  /// where those come from.
  typealias SequenceChoice = (id: llama_seq_id, reused: Int, start: CachedStart)

  /// Where a new request's cached start comes from.
  enum CachedStart {
    /// What its sequence holds (or nothing).
    case own
    /// Another free sequence's cache, copied.
    case copy(from: llama_seq_id)
    /// A state of the ``PromptStateCache`` (the index of the entry).
    case restore(entry: Int)
    /// The start of a prompt another sequence of the batch is evaluating, copied once it is done
    /// (see ``BatchedSequence/awaitedPrefix``).
    case awaiting(BatchedSequence)
  }

  /// Saves what sequence `id` holds into the ``PromptStateCache`` before all but its first
  /// `keeping` tokens are dropped, when that is at least ``minimumCopiedPrefix`` tokens and the
  /// cache does not hold those tokens already (as llama-server's prompt cache skips a prompt it
  /// holds).
  func saveRetainedState(of id: llama_seq_id, keeping: Int) {
    guard promptStates.capacity > 0, let context, let cached = retainedTokens[id],
          cached.count - keeping >= Self.minimumCopiedPrefix else { return }
    guard !promptStates.covers(cached) else {
      statistics.statesAlreadyHeld += 1
      return
    }
    let size = llama_state_seq_get_size(context, id)
    guard size > 0, size <= promptStates.capacity else { return }
    var state = [UInt8](repeating: 0, count: size)
    let written = state.withUnsafeMutableBufferPointer { llama_state_seq_get_data(context, $0.baseAddress, size, id) }
    guard written > 0 else { return logger.warning("could not save a sequence's state", metadata: ["seq": "\(id)"]) }
    state.removeLast(size - min(size, written))
    promptStates.insert(.init(tokens: cached, state: state))
    statistics.statesSaved += 1
    logger.debug("sequence state saved", metadata: [
      "seq": "\(id)", "tokens": "\(cached.count)", "bytes": "\(written)", "cachedStates": "\(promptStates.entries.count)",
    ])
  }

  /// Loads a saved state into sequence `id` (saving what `id` held first) and keeps its first
  /// `length` tokens; returns how many it holds (0 when llama.cpp refuses the state).
  func restoreCachedPrefix(_ entry: PromptStateCache.Entry, into id: llama_seq_id, length: Int) -> Int {
    emptySequence(id)
    guard let context else { return 0 }
    let memory = llama_get_memory(context)
    let read = entry.state.withUnsafeBufferPointer { llama_state_seq_set_data(context, $0.baseAddress, entry.state.count, id) }
    guard read > 0 else {
      logger.warning("could not restore a saved sequence state; evaluating the prompt", metadata: ["seq": "\(id)"])
      llama_memory_seq_rm(memory, id, -1, -1)
      return 0
    }
    logger.debug("sequence state restored", metadata: ["seq": "\(id)", "tokens": "\(entry.tokens.count)", "kept": "\(length)"])
    if llama_memory_seq_rm(memory, id, Int32(length), -1) { return length }
    llama_memory_seq_rm(memory, id, -1, -1)
    return 0
  }

  /// The shortest shared start worth copying another sequence's keys and values for: the copy
  /// moves the whole of that sequence's buffer (`contextSizePerSequence` cells), which on a CPU
  /// costs about what evaluating a dozen tokens does.
  static let minimumCopiedPrefix = 16

  /// Gives sequence `id` the first `length` tokens of free sequence `source`'s cache (llama.cpp
  /// copies the buffer at the next decode), dropping what `id` held; `source` keeps its cache.
  /// Returns how many tokens `id` now holds.
  func copyCachedPrefix(from source: llama_seq_id, to id: llama_seq_id, length: Int) -> Int {
    emptySequence(id)
    guard let context else { return 0 }
    let memory = llama_get_memory(context)
    llama_memory_seq_cp(memory, source, id, -1, -1)
    if llama_memory_seq_rm(memory, id, Int32(length), -1) { return length }
    llama_memory_seq_rm(memory, id, -1, -1)
    return 0
  }

  /// Empties free sequence `id` for a new request (what it held goes to the ``PromptStateCache`` first).
  func emptySequence(_ id: llama_seq_id) {
    saveRetainedState(of: id, keeping: 0)
    retainedTokens[id] = nil
    if let context { llama_memory_seq_rm(llama_get_memory(context), id, -1, -1) }
  }

  /// Drops what sequence `id` holds beyond its first `length` tokens; returns how many it keeps
  /// (0 when llama.cpp cannot cut the sequence there).
  func keepCachedPrefix(of id: llama_seq_id, length: Int) -> Int {
    saveRetainedState(of: id, keeping: length)
    guard let cached = retainedTokens.removeValue(forKey: id), let context else { return 0 }
    let memory = llama_get_memory(context)
    guard length < cached.count else { return length }
    if llama_memory_seq_rm(memory, id, Int32(length), -1) { return length }
    llama_memory_seq_rm(memory, id, -1, -1)
    return 0
  }
}
