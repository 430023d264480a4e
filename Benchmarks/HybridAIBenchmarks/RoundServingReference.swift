import Foundation
import HybridAIProcess

/// A reference process that stays up and times one round per request: it reads `RUNS WARM_UP`
/// lines on its standard input and answers each with one JSON line `{"median_ms": …}` (after a
/// first `{"ready": true}` line once it has loaded and warmed up).
///
/// Keeping the reference alive lets a benchmark alternate its own rounds with the reference's
/// a millisecond apart, instead of a process start (about a second) apart: on a shared virtual
/// machine whose speed changes from second to second, both sides then see the same machine.
final class RoundServingReference: Sendable {
  private let child: RunningChildProcess
  private let name: String

  /// Starts `executable` with `arguments` and waits for its `ready` line.
  init(_ executable: String, _ arguments: [String]) async throws {
    guard FileManager.default.isExecutableFile(atPath: executable) else {
      throw BenchmarkError.referenceFailed("\(executable) is not an executable (run scripts/bootstrap --bench)")
    }
    name = URL(fileURLWithPath: executable).lastPathComponent
    child = try await ChildProcess(executable: executable, arguments: arguments).start(standardError: .collected)
    struct Ready: Decodable { let ready: Bool }
    guard try JSONDecoder().decode(Ready.self, from: try await nextLine()).ready else {
      throw BenchmarkError.referenceFailed("\(name) did not get ready")
    }
  }

  /// One round: `warmUpRuns` untimed invokes, then the median of `runs` timed ones, in milliseconds.
  func round(runs: Int, warmUpRuns: Int) async throws -> Double {
    try await child.write("\(runs) \(warmUpRuns)\n")
    struct Round: Decodable { let median_ms: Double }
    return try JSONDecoder().decode(Round.self, from: try await nextLine()).median_ms
  }

  /// Ends the process (end of input) and waits for it.
  func finish() async {
    await child.closeInput()
    _ = await child.waitForExit()
  }

  private func nextLine() async throws -> Data {
    if let line = await child.nextLine() { return Data(line.utf8) }
    let outcome = await child.stop()
    throw BenchmarkError.referenceFailed("\(name) ended (exit status \(outcome.status)) before answering"
      + (outcome.standardError.isEmpty ? "" : ": \(outcome.standardError.suffix(2000))"))
  }
}
