import CLlama

/// Finds a draft in a token history (prompt lookup): where the history's last tokens appeared
/// before, the tokens that followed them there. Of all earlier places that end like the history,
/// the one agreeing with it over the most tokens wins (the latest of equals), and that length —
/// how much of the past the present repeats — says how far the draft can be trusted.
struct NGramDrafter {
  /// A draft found: the tokens that followed, and how many tokens before them agree with the end of the history.
  struct Draft: Equatable {
    var tokens: [llama_token]
    var matchLength: Int
  }

  /// The fewest agreeing tokens for a draft.
  let shortestMatch: Int
  /// Agreement is counted up to this many tokens.
  static let longestCountedMatch = 64

  init(shortestMatch: Int) {
    self.shortestMatch = max(1, shortestMatch)
  }

  /// Up to `length` tokens that followed the earlier place agreeing longest with the end of
  /// `history` (at least ``shortestMatch`` tokens); `nil` when there is none.
  func draft(from history: [llama_token], length: Int) -> Draft? {
    guard length > 0, history.count > shortestMatch else { return nil }
    return history.withUnsafeBufferPointer { tokens -> Draft? in
      let count = tokens.count
      let last = tokens[count - 1]
      var best: (end: Int, match: Int)?
      // A candidate place ends at `end` (exclusive): tokens[end - 1] agrees with the last token.
      var end = count - 1
      while end >= shortestMatch {
        if tokens[end - 1] == last {
          var match = 1
          let limit = min(Self.longestCountedMatch, end)
          while match < limit, tokens[end - 1 - match] == tokens[count - 1 - match] { match += 1 }
          if match >= shortestMatch, match > (best?.match ?? 0) { best = (end, match) }
        }
        end -= 1
      }
      guard let best else { return nil }
      return Draft(tokens: Array(tokens[best.end..<min(count, best.end + length)]), matchLength: best.match)
    }
  }
}
