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
