import Foundation
import Testing

/// Schemathesis (from PyPI, pinned in scripts/requirements/schemathesis.txt) generates requests
/// from the registry's own OpenAPI document and sends them to a real server: no answer may be a
/// 5xx, and every answer must match the document.
@Suite("Registry API fuzzing (schemathesis)")
struct RegistryFuzzTests {
  static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("registry_fuzz.sh")

  @Test("a bounded schemathesis run from openapi.yaml finds no server error and no undocumented answer")
  func fuzzFromTheOpenAPIDocument() async throws {
    let schemathesis = GoogleGenAIConformanceTests.repositoryRoot.appendingPathComponent(".deps/schemathesis-venv/bin/schemathesis")
    try #require(FileManager.default.isExecutableFile(atPath: schemathesis.path),
                 "schemathesis is missing at \(schemathesis.path): run scripts/bootstrap (make test does)")
    try await RegistryTestServer.with(maxUploadBytes: 1 << 20) { server in
      let (status, output) = try await Self.run(URL(fileURLWithPath: "/bin/bash"),
                                                [Self.script.path, server.baseURL.absoluteString, RegistryTestServer.adminToken])
      #expect(status == 0, "\(output.suffix(4000))")
      #expect(output.contains("registry_fuzz: PASS"), "\(output.suffix(2000))")
    }
  }

  /// Runs a process to completion off the cooperative pool; returns its exit status and output.
  static func run(_ executable: URL, _ arguments: [String]) async throws -> (Int32, String) {
    try await withCheckedThrowingContinuation { continuation in
      let process = Process()
      process.executableURL = executable
      process.arguments = arguments
      let output = Pipe()
      process.standardOutput = output
      process.standardError = output
      do {
        try process.run()
      } catch {
        continuation.resume(throwing: error)
        return
      }
      Thread.detachNewThread {
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        continuation.resume(returning: (process.terminationStatus, String(decoding: data, as: UTF8.self)))
      }
    }
  }
}
