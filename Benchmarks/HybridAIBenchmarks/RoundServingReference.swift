import Foundation

/// A reference process that stays up and times one round per request: it reads `RUNS WARM_UP`
/// lines on its standard input and answers each with one JSON line `{"median_ms": …}` (after a
/// first `{"ready": true}` line once it has loaded and warmed up).
///
/// Keeping the reference alive lets a benchmark alternate its own rounds with the reference's
/// a millisecond apart, instead of a process start (about a second) apart: on a shared virtual
/// machine whose speed changes from second to second, both sides then see the same machine.
final class RoundServingReference {
  private let process = Process()
  private let requests = Pipe()
  private let answers = Pipe()
  private var unread = Data()
  private let name: String

  /// Starts `executable` with `arguments` and waits for its `ready` line.
  init(_ executable: String, _ arguments: [String]) throws {
    guard FileManager.default.isExecutableFile(atPath: executable) else {
      throw BenchmarkError.referenceFailed("\(executable) is not an executable (run scripts/bootstrap --bench)")
    }
    name = URL(fileURLWithPath: executable).lastPathComponent
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    process.standardInput = requests
    process.standardOutput = answers
    process.standardError = FileHandle.nullDevice
    try process.run()
    struct Ready: Decodable { let ready: Bool }
    guard try JSONDecoder().decode(Ready.self, from: try nextLine()).ready else {
      throw BenchmarkError.referenceFailed("\(name) did not get ready")
    }
  }

  deinit {
    if process.isRunning { process.terminate() }
  }

  /// One round: `warmUpRuns` untimed invokes, then the median of `runs` timed ones, in milliseconds.
  func round(runs: Int, warmUpRuns: Int) throws -> Double {
    guard process.isRunning else {
      throw BenchmarkError.referenceFailed("\(name) ended (exit status \(process.terminationStatus))")
    }
    try requests.fileHandleForWriting.write(contentsOf: Data("\(runs) \(warmUpRuns)\n".utf8))
    struct Round: Decodable { let median_ms: Double }
    return try JSONDecoder().decode(Round.self, from: try nextLine()).median_ms
  }

  /// Ends the process (end of input) and waits for it.
  func finish() {
    try? requests.fileHandleForWriting.close()
    process.waitUntilExit()
  }

  private func nextLine() throws -> Data {
    while true {
      if let newline = unread.firstIndex(of: UInt8(ascii: "\n")) {
        let line = unread[unread.startIndex..<newline]
        unread = Data(unread[unread.index(after: newline)...])
        return Data(line)
      }
      let chunk = answers.fileHandleForReading.availableData
      guard !chunk.isEmpty else {
        process.waitUntilExit()
        throw BenchmarkError.referenceFailed("\(name) ended (exit status \(process.terminationStatus)) before answering")
      }
      unread.append(chunk)
    }
  }
}
