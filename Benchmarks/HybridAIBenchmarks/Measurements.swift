import Foundation

/// Summaries of repeated measurements, shared by the benchmark suites.
extension [Double] {
  /// The middle value (the upper one for an even count); `0` when empty.
  var median: Double {
    let sorted = self.sorted()
    return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
  }

  /// The values as `a/b/c`, with `decimals` digits; `—` when empty.
  func slashList(decimals: Int = 0) -> String {
    isEmpty ? "—" : map { String(format: "%.\(decimals)f", $0) }.joined(separator: "/")
  }
}

/// Runs a reference tool to completion and returns what it printed (standard output, and standard
/// error when `includeStandardError`), or throws when it fails.
enum ReferenceProcess {
  static func run(_ executable: String, _ arguments: [String], includeStandardError: Bool = false) throws -> Data {
    guard FileManager.default.isExecutableFile(atPath: executable) else {
      throw BenchmarkError.referenceFailed("\(executable) is not an executable (run scripts/bootstrap --bench)")
    }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    let output = Pipe()
    process.standardOutput = output
    process.standardError = includeStandardError ? output : FileHandle.nullDevice
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
      throw BenchmarkError.referenceFailed("\(URL(fileURLWithPath: executable).lastPathComponent) exit status \(process.terminationStatus)")
    }
    return data
  }
}
