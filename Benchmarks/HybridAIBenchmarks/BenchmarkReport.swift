import Foundation

/// A side-by-side table: our number, the reference's, the ratio, the target and whether it is met.
public struct BenchmarkReport: Sendable {
  public enum Target: Sendable {
    /// ours / reference at least this.
    case atLeast(Double)
    /// ours / reference at most this.
    case atMost(Double)
    /// ours − reference at most this many units (e.g. milliseconds of extra latency).
    case excessAtMost(Double, unit: String)
    /// ours below this absolute bound (e.g. peak memory under 64 MiB); the reference is shown for comparison.
    case below(Double, unit: String)
    /// No target: shown for comparison only.
    case informational

    var text: String {
      switch self {
      case .atLeast(let bound): String(format: "≥ %.2f×", bound)
      case .atMost(let bound): String(format: "≤ %.2f×", bound)
      case .excessAtMost(let bound, let unit): String(format: "≤ +%.0f ", bound) + unit
      case .below(let bound, let unit): String(format: "< %.0f ", bound) + unit
      case .informational: "—"
      }
    }
  }

  public struct Row: Sendable {
    public var metric: String
    public var ours: Double
    public var reference: Double?
    public var target: Target
    /// For measurements taken in pairs (ours and the reference's, side by side, many times): the
    /// median of the per-pair ratios. When set, it is the ratio shown and judged: on a machine whose
    /// speed shifts during the run, pairs cancel the shifts that a ratio of two medians keeps.
    public var pairedRatio: Double? = nil

    public var ratio: Double? { pairedRatio ?? reference.flatMap { $0 > 0 ? ours / $0 : nil } }

    public var meetsTarget: Bool? {
      switch target {
      case .atLeast(let bound): ratio.map { $0 >= bound }
      case .atMost(let bound): ratio.map { $0 <= bound }
      case .excessAtMost(let bound, _): reference.map { ours - $0 <= bound }
      case .below(let bound, _): ours < bound
      case .informational: nil
      }
    }

    /// The comparison column: the ratio, or the difference for excess targets.
    var comparison: String {
      if case .excessAtMost(_, let unit) = target, let reference {
        return String(format: "%+.1f ", ours - reference) + unit
      }
      return ratio.map { String(format: "%.2f×", $0) } ?? "—"
    }
  }

  public var title: String
  public var rows: [Row] = []
  public var notes: [String] = []

  /// A Markdown table (also readable in a terminal).
  public var markdown: String {
    var lines = ["### \(title)", "",
                 "| metric | HybridAI | reference | ratio / difference | target | met |",
                 "|---|---:|---:|---:|---|---|"]
    for row in rows {
      let reference = row.reference.map { String(format: "%.1f", $0) } ?? "—"
      let ratio = row.comparison
      let met = row.meetsTarget.map { $0 ? "yes" : "NO" } ?? "—"
      lines.append("| \(row.metric) | \(String(format: "%.1f", row.ours)) | \(reference) | \(ratio) | \(row.target.text) | \(met) |")
    }
    lines.append("")
    lines.append(contentsOf: notes.map { "- \($0)" })
    return lines.joined(separator: "\n")
  }
}
