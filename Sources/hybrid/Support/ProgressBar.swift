import Foundation

/// A progress bar (of a download, or of a tool's work) on standard error: redrawn in place on a terminal, a line per 25% otherwise
/// (so logs and CI output stay readable).
struct ProgressBar {
  private let label: String
  private let showsBytes: Bool
  private let isTerminal: Bool
  private let started = ContinuousClock.now
  private var lastDraw: ContinuousClock.Instant?
  private var lastQuarter = -1

  /// `showsBytes: false` draws only the bar and the percentage (for work that is not a transfer).
  init(label: String, showsBytes: Bool = true, isTerminal: Bool = isatty(STDERR_FILENO) == 1) {
    self.label = label
    self.showsBytes = showsBytes
    self.isTerminal = isTerminal
  }

  /// Shows `completed` of `total` bytes (at most ten redraws a second, always the last one).
  mutating func update(completed: Int64, total: Int64?) {
    let now = ContinuousClock.now
    let finished = total.map { completed >= $0 } ?? false
    if isTerminal {
      if let lastDraw, now - lastDraw < .milliseconds(100), !finished { return }
      lastDraw = now
      FileHandle.standardError.write(Data(("\r" + line(completed: completed, total: total) + "\u{1B}[K").utf8))
    } else if let total, total > 0 {
      let quarter = Int(completed * 4 / total)
      guard quarter > lastQuarter else { return }
      lastQuarter = quarter
      FileHandle.standardError.write(Data((line(completed: completed, total: total) + "\n").utf8))
    }
  }

  /// Ends the bar's line on a terminal.
  func finish() {
    if isTerminal, lastDraw != nil { FileHandle.standardError.write(Data("\n".utf8)) }
  }

  /// `label [#########-----------]  45%  12.3/27.0 MB  85.2 MB/s`
  func line(completed: Int64, total: Int64?) -> String {
    let seconds = max((ContinuousClock.now - started).seconds, 0.001)
    let rate = String(format: "%.1f MB/s", Double(completed) / 1_000_000 / seconds)
    guard let total, total > 0 else {
      return "\(label)  \(String(format: "%.1f MB", Double(completed) / 1_000_000))  \(rate)"
    }
    let fraction = min(1, Double(completed) / Double(total))
    let width = 24, filled = Int(fraction * Double(width))
    let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
    guard showsBytes else { return "\(label) [\(bar)] \(String(format: "%3d%%", Int(fraction * 100)))" }
    return "\(label) [\(bar)] \(String(format: "%3d%%", Int(fraction * 100)))  "
      + String(format: "%.1f/%.1f MB", Double(completed) / 1_000_000, Double(total) / 1_000_000) + "  \(rate)"
  }
}
