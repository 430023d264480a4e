import Foundation
import HybridAIProcess
import HybridAIServerTestSupport
import HybridAITestSupport
import Testing

/// Schemathesis (from PyPI, pinned in scripts/requirements/schemathesis.txt) generates requests
/// from the registry's own OpenAPI document and sends them to a real server: no answer may be a
/// 5xx, and every answer must match the document.
@Suite("Registry API fuzzing (schemathesis)")
struct RegistryFuzzTests {
  static let script = TestRepository.file("Tests/HybridAIRegistryTests/registry_fuzz.sh")

  @Test("a bounded schemathesis run from openapi.yaml finds no server error and no undocumented answer")
  func fuzzFromTheOpenAPIDocument() async throws {
    try Schemathesis.requireInstalled()
    try await RunningRegistry.with(maxUploadBytes: 1 << 20) { server in
      let outcome = try await ChildProcess.run(
        URL(fileURLWithPath: "/bin/bash"), [Self.script.path, server.baseURL.absoluteString, RunningRegistry.adminToken],
        mergingStandardError: true)
      let (status, output) = (outcome.status, outcome.output)
      #expect(status == 0, "\(output.suffix(4000))")
      #expect(output.contains("registry_fuzz: PASS"), "\(output.suffix(2000))")
    }
  }
}
