import CLlama

/// Finds a draft in a token history: the tokens that followed the latest earlier occurrence of
/// the history's last few tokens (prompt lookup). Longer matches are tried first, since they
/// predict better.
struct NGramDrafter {
  let longestMatch: Int
  let shortestMatch: Int

  init(_ settings: SpeculativeDecoding) {
    longestMatch = settings.longestMatch
    shortestMatch = settings.shortestMatch
  }

  /// Up to `length` tokens that followed the last `longestMatch`…`shortestMatch` tokens of
  /// `history` where they last appeared before; empty when they appear nowhere else.
  func draft(from history: [llama_token], length: Int) -> [llama_token] {
    guard length > 0 else { return [] }
    return history.withUnsafeBufferPointer { tokens in
      for match in stride(from: min(longestMatch, tokens.count - 1), through: shortestMatch, by: -1) {
        guard let start = Self.latestEarlierOccurrence(ofSuffix: match, in: tokens) else { continue }
        let following = start + match
        return Array(tokens[following..<min(tokens.count, following + length)])
      }
      return []
    }
  }

  /// Where the last `length` tokens of `tokens` last appeared before the end (the start of that
  /// occurrence), if they did.
  static func latestEarlierOccurrence(ofSuffix length: Int, in tokens: UnsafeBufferPointer<llama_token>) -> Int? {
    guard length > 0, tokens.count > length else { return nil }
    let suffixStart = tokens.count - length
    let last = tokens[tokens.count - 1]
    // Candidates end at `end` (exclusive), before the suffix's own end.
    var end = tokens.count - 1
    while end >= length {
      if tokens[end - 1] == last {
        let start = end - length
        var index = 0
        while index < length - 1, tokens[start + index] == tokens[suffixStart + index] { index += 1 }
        if index == length - 1 { return start }
      }
      end -= 1
    }
    return nil
  }
}
