import Foundation

/// A side-by-side table: our number, the reference's, the ratio, the target and whether it is met.
public struct BenchmarkReport: Sendable {
  public enum Target: Sendable {
    case atLeast(Double)
    case atMost(Double)

    func isMet(by ratio: Double) -> Bool {
      switch self {
      case .atLeast(let bound): ratio >= bound
      case .atMost(let bound): ratio <= bound
      }
    }

    var text: String {
      switch self {
      case .atLeast(let bound): String(format: "≥ %.2f×", bound)
      case .atMost(let bound): String(format: "≤ %.2f×", bound)
      }
    }
  }

  public struct Row: Sendable {
    public var metric: String
    public var ours: Double
    public var reference: Double?
    public var target: Target

    public var ratio: Double? { reference.flatMap { $0 > 0 ? ours / $0 : nil } }
    public var meetsTarget: Bool? { ratio.map(target.isMet(by:)) }
  }

  public var title: String
  public var rows: [Row] = []
  public var notes: [String] = []

  /// A Markdown table (also readable in a terminal).
  public var markdown: String {
    var lines = ["### \(title)", "",
                 "| metric | HybridAI | reference | ratio | target | met |",
                 "|---|---:|---:|---:|---|---|"]
    for row in rows {
      let reference = row.reference.map { String(format: "%.1f", $0) } ?? "—"
      let ratio = row.ratio.map { String(format: "%.2f×", $0) } ?? "—"
      let met = row.meetsTarget.map { $0 ? "yes" : "NO" } ?? "—"
      lines.append("| \(row.metric) | \(String(format: "%.1f", row.ours)) | \(reference) | \(ratio) | \(row.target.text) | \(met) |")
    }
    lines.append("")
    lines.append(contentsOf: notes.map { "- \($0)" })
    return lines.joined(separator: "\n")
  }
}
