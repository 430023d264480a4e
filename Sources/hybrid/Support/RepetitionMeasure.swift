import Synchronization

/// How much a text repeats itself: the share of its word trigrams that already occurred earlier in
/// it. A small model stuck in a loop ("I am a robot. I am a robot. …") scores near 1; ordinary
/// prose near 0. `hybrid demo` reports it over its answers.
struct RepetitionMeasure: Sendable, Equatable {
  /// Word trigrams in the text.
  var trigrams: Int
  /// Trigrams seen before in the same text.
  var repeatedTrigrams: Int

  /// The share of repeated trigrams, 0 for a text of fewer than three words.
  var ratio: Double { trigrams == 0 ? 0 : Double(repeatedTrigrams) / Double(trigrams) }

  init(_ text: String) {
    let words = text.lowercased().split { !$0.isLetter && !$0.isNumber && $0 != "'" }.map(String.init)
    var seen = Set<[String]>()
    trigrams = max(0, words.count - 2)
    repeatedTrigrams = 0
    for start in 0..<trigrams where !seen.insert(Array(words[start..<start + 3])).inserted {
      repeatedTrigrams += 1
    }
  }
}

/// The demo's answers and how much each repeats itself.
final class RepetitionTally: Sendable {
  private let answers = Mutex<[RepetitionMeasure]>([])

  func record(_ answer: String) { answers.withLock { $0.append(RepetitionMeasure(answer)) } }

  /// "7 answers · 2.1% of word trigrams repeated · worst answer 9.5%", or `nil` before any answer.
  var summary: String? {
    let measured = answers.withLock { $0 }
    guard !measured.isEmpty else { return nil }
    let trigrams = measured.reduce(0) { $0 + $1.trigrams }
    let repeated = measured.reduce(0) { $0 + $1.repeatedTrigrams }
    let overall = trigrams == 0 ? 0 : Double(repeated) / Double(trigrams)
    let worst = measured.map(\.ratio).max() ?? 0
    return "\(measured.count) answers · \(String(format: "%.1f", overall * 100))% of word trigrams repeated · "
      + "worst answer \(String(format: "%.1f", worst * 100))%"
  }
}
