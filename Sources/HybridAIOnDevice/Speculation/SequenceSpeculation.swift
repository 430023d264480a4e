import CLlama

/// One generation's speculation: the tokens it drafts from (the prompt and the answer so far),
/// how long its next draft may be, and how many drafted tokens were checked and taken.
struct SequenceSpeculation {
  /// Where drafts come from.
  enum Drafter {
    /// The conversation's own n-grams.
    case ngram(NGramDrafter)
    /// A draft model's sequence.
    case model(DraftModelContext, sequence: llama_seq_id)
  }

  private var history: [llama_token]
  private let drafter: Drafter
  private var lengths: DraftLengthPolicy
  /// The draft being checked: its length and how many of its tokens were taken so far.
  private var open: (drafted: Int, accepted: Int)?
  /// Drafted tokens evaluated, and the part of them the model chose too.
  private(set) var draftedTokens = 0
  private(set) var acceptedTokens = 0

  /// `nil` when `settings` turn speculation off; `onGPU`: whether the model's layers run on a GPU
  /// (where a drafted token costs less to check). With `draftModel`, its sequence `sequence`
  /// drafts (media places, which it cannot read, are left out of its history).
  init?(_ settings: SpeculativeDecoding, prompt: [llama_token], onGPU: Bool,
        draftModel: DraftModelContext? = nil, sequence: llama_seq_id = 0) {
    guard settings.isEnabled else { return nil }
    if let draftModel {
      history = prompt.filter { $0 >= 0 }
      drafter = .model(draftModel, sequence: sequence)
    } else {
      history = prompt
      drafter = .ngram(NGramDrafter(shortestMatch: settings.shortestMatch))
    }
    lengths = DraftLengthPolicy(maximum: settings.maximumDraftTokens, draftTokenCost: settings.draftTokenCost(onGPU: onGPU))
  }

  /// A token chosen for the answer.
  mutating func append(_ token: llama_token) {
    history.append(token)
  }

  /// A draft to evaluate after the last chosen token, at most `room` tokens (empty: decode one
  /// token): as long as the adaptive length allows and, from n-grams, no longer than the repeat
  /// it continues (an answer that copies its prompt repeats more with every token, so its drafts
  /// grow); from a draft model, as far as that model is sure.
  mutating func draft(room: Int) -> [llama_token] {
    closeDraft()
    let adaptive = lengths.nextLength()
    guard adaptive > 0, room > 0 else { return [] }
    let draft: [llama_token]
    switch drafter {
    case .ngram(let ngrams):
      guard let found = ngrams.draft(from: history, length: min(room, adaptive)) else { return [] }
      draft = Array(found.tokens.prefix(min(adaptive, found.matchLength)))
    case .model(let model, let sequence):
      draft = model.draft(for: sequence, after: history, length: min(room, adaptive))
    }
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
