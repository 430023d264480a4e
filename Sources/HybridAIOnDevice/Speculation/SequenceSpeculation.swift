import CLlama

/// One generation's speculation: the tokens it drafts from (the prompt and the answer so far),
/// how long its next draft may be, and how many drafted tokens were checked and taken.
struct SequenceSpeculation {
  private var history: [llama_token]
  private let drafter: NGramDrafter
  private var lengths: DraftLengthPolicy
  /// The draft being checked: its length and how many of its tokens were taken so far.
  private var open: (drafted: Int, accepted: Int)?
  /// Drafted tokens evaluated, and the part of them the model chose too.
  private(set) var draftedTokens = 0
  private(set) var acceptedTokens = 0

  /// `nil` when `settings` turn speculation off; `onGPU`: whether the model's layers run on a GPU
  /// (where a drafted token costs less to check).
  init?(_ settings: SpeculativeDecoding, prompt: [llama_token], onGPU: Bool) {
    guard settings.isEnabled else { return nil }
    history = prompt
    drafter = NGramDrafter(shortestMatch: settings.shortestMatch)
    lengths = DraftLengthPolicy(maximum: settings.maximumDraftTokens, draftTokenCost: settings.draftTokenCost(onGPU: onGPU))
  }

  /// A token chosen for the answer.
  mutating func append(_ token: llama_token) {
    history.append(token)
  }

  /// A draft to evaluate after the last chosen token, at most `room` tokens (empty: decode one
  /// token): as long as the adaptive length allows and no longer than the repeat it continues
  /// (an answer that copies its prompt repeats more with every token, so its drafts grow).
  mutating func draft(room: Int) -> [llama_token] {
    closeDraft()
    let adaptive = lengths.nextLength()
    guard adaptive > 0, room > 0, let found = drafter.draft(from: history, length: min(room, adaptive)) else { return [] }
    let length = min(adaptive, found.matchLength)
    let draft = Array(found.tokens.prefix(length))
    if !draft.isEmpty {
      open = (draft.count, 0)
      draftedTokens += draft.count
    }
    return draft
  }

  /// The model chose the next drafted token.
  mutating func accept() {
    open?.accepted += 1
    acceptedTokens += 1
  }

  /// The model chose another token than the draft's next (the rest of the draft is dropped), or
  /// the answer ended.
  mutating func closeDraft() {
    guard let open else { return }
    lengths.record(drafted: open.drafted, accepted: open.accepted)
    self.open = nil
  }
}
