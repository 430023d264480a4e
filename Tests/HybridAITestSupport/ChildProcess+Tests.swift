import Foundation
import HybridAIProcess

extension ChildProcess {
  /// Runs `executable` with `arguments` to its end (the Python clients, schemathesis, the built
  /// `hybrid`): standard output collected (up to 64 MiB), standard error with it when
  /// `mergingStandardError`; with exactly `environment`, when given.
  public static func run(_ executable: URL, _ arguments: [String], mergingStandardError: Bool = false,
                         environment: [String: String]? = nil) async throws -> Outcome {
    var process = ChildProcess(executable: executable, arguments: arguments)
    if let environment {
      process.environment = environment
      process.inheritsEnvironment = false
    }
    return try await process
      .run(output: mergingStandardError ? .collectedWithStandardError(limit: 64 << 20) : .collected(limit: 64 << 20))
  }
}

extension ChildProcess.Outcome {
  /// Standard output (with standard error, when merged).
  public var output: String { standardOutput }
}

extension RunningChildProcess {
  /// Waits until the child has installed a handler for `signal` (its `SigCgt` mask in
  /// `/proc/PID/status`), so a signal sent next is caught rather than fatal; false when the child
  /// ended first or `limit` passed.
  public func waitUntilCatching(_ signal: Int32, limit: Duration = .seconds(60)) async -> Bool {
    let deadline = ContinuousClock.now + limit
    while isRunning, ContinuousClock.now < deadline {
      if let pid = processIdentifier,
         let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
         let line = status.split(separator: "\n").first(where: { $0.hasPrefix("SigCgt:") }),
         let mask = UInt64(line.dropFirst("SigCgt:".count).trimmingCharacters(in: .whitespaces), radix: 16),
         mask & (1 << UInt64(signal - 1)) != 0 {
        return true
      }
      try? await Task.sleep(for: .milliseconds(20))
    }
    return false
  }
}
