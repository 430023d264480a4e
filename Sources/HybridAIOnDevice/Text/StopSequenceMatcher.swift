/// Finds stop sequences in streamed text, holding back only what could still become one.
struct StopSequenceMatcher {
  private let stopSequences: [String]
  private var held = ""

  init(stopSequences: [String]) {
    self.stopSequences = stopSequences.filter { !$0.isEmpty }
  }

  enum Outcome: Equatable {
    /// Text that is safe to show.
    case emit(String)
    /// A stop sequence was found: show this text (everything before it) and stop.
    case stop(String)
  }

  /// Adds generated text.
  mutating func append(_ text: String) -> Outcome {
    guard !stopSequences.isEmpty else { return .emit(text) }
    held += text
    if let range = stopSequences.compactMap({ held.range(of: $0) }).min(by: { $0.lowerBound < $1.lowerBound }) {
      let before = String(held[..<range.lowerBound])
      held = ""
      return .stop(before)
    }
    let keep = longestSuffixThatStartsAStopSequence()
    let emitted = String(held.dropLast(keep))
    held = String(held.suffix(keep))
    return .emit(emitted)
  }

  /// The end of the stream: releases what was held back.
  mutating func finish() -> String {
    defer { held = "" }
    return held
  }

  private func longestSuffixThatStartsAStopSequence() -> Int {
    var longest = 0
    for stop in stopSequences {
      for length in stride(from: min(stop.count - 1, held.count), to: longest, by: -1)
      where stop.hasPrefix(held.suffix(length)) {
        longest = length
        break
      }
    }
    return longest
  }
}
