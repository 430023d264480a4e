import Foundation

/// Runs programs to completion off the cooperative pool (the Python clients, schemathesis).
public enum ChildProcess {
  /// How a program ended and what it printed.
  public struct Outcome: Sendable {
    /// Its exit status.
    public var status: Int32
    /// Standard output, and standard error too when it was merged.
    public var output: String
  }

  /// Runs `executable` with `arguments`; standard error goes to ours unless `mergingStandardError`.
  public static func run(_ executable: URL, _ arguments: [String], mergingStandardError: Bool = false) async throws -> Outcome {
    try await withCheckedThrowingContinuation { continuation in
      let process = Process()
      process.executableURL = executable
      process.arguments = arguments
      let output = Pipe()
      process.standardOutput = output
      process.standardError = mergingStandardError ? output : FileHandle.standardError
      do {
        try process.run()
      } catch {
        continuation.resume(throwing: error)
        return
      }
      Thread.detachNewThread {
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        continuation.resume(returning: Outcome(status: process.terminationStatus, output: String(decoding: data, as: UTF8.self)))
      }
    }
  }
}
