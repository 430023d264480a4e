import CLlama

extension Array where Element == llama_token {
  /// How many of these cached tokens a request for `prompt` can keep: the prefix the two share,
  /// leaving at least one prompt token to evaluate (its logits start the answer).
  func reusablePrefixLength(for prompt: [llama_token]) -> Int {
    let limit = Swift.min(count, prompt.count - 1)
    var shared = 0
    while shared < limit, self[shared] == prompt[shared] { shared += 1 }
    return shared
  }
}
