import Foundation
import HybridAIProcess

/// Summaries of repeated measurements, shared by the benchmark suites.
extension [Double] {
  /// The middle value (for an even count the mean of the two middle ones: taking the upper one
  /// would bias every median of per-round ratios upwards, e.g. with the serving bench's 4 rounds);
  /// `0` when empty.
  var median: Double {
    let sorted = self.sorted()
    guard !sorted.isEmpty else { return 0 }
    let middle = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
  }

  /// The `fraction` percentile (0.5: the median, 0.99: p99) by the nearest-rank rule; `0` when empty.
  func percentile(_ fraction: Double) -> Double {
    let sorted = self.sorted()
    guard !sorted.isEmpty else { return 0 }
    let rank = Int((fraction * Double(sorted.count)).rounded(.up))
    return sorted[Swift.min(Swift.max(rank, 1), sorted.count) - 1]
  }

  /// The values as `a/b/c`, with `decimals` digits; `—` when empty.
  func slashList(decimals: Int = 0) -> String {
    isEmpty ? "—" : map { String(format: "%.\(decimals)f", $0) }.joined(separator: "/")
  }
}

/// Runs a reference tool to completion and returns what it printed (standard output, and standard
/// error when `includeStandardError`), or throws when it fails.
enum ReferenceProcess {
  static func run(_ executable: String, _ arguments: [String], includeStandardError: Bool = false) async throws -> Data {
    guard FileManager.default.isExecutableFile(atPath: executable) else {
      throw BenchmarkError.referenceFailed("\(executable) is not an executable (run scripts/bootstrap --bench)")
    }
    let name = URL(fileURLWithPath: executable).lastPathComponent
    let limit = 16 << 20
    let outcome: ChildProcess.Outcome
    do {
      outcome = try await ChildProcess(executable: executable, arguments: arguments)
        .run(output: includeStandardError ? .collectedWithStandardError(limit: limit) : .collected(limit: limit))
    } catch {
      throw BenchmarkError.referenceFailed("\(name): \(error)")
    }
    guard outcome.succeeded else {
      throw BenchmarkError.referenceFailed("\(name) exit status \(outcome.status)"
        + (outcome.standardError.isEmpty ? "" : ": \(outcome.standardError.suffix(2000))"))
    }
    return Data(outcome.standardOutput.utf8)
  }
}
