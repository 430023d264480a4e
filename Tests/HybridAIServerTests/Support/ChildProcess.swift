import Foundation

/// Runs programs to completion off the cooperative pool (the Python clients, schemathesis).
enum ChildProcess {
  struct Outcome {
    var status: Int32
    /// Standard output, and standard error too when it was merged.
    var output: String
  }

  /// Runs `executable` with `arguments`; standard error goes to ours unless `mergingStandardError`.
  static func run(_ executable: URL, _ arguments: [String], mergingStandardError: Bool = false) async throws -> Outcome {
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
