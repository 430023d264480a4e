import Foundation
import HybridAIProcess
import HybridAIServerTestSupport
import HybridAITestSupport
import Testing

/// Schemathesis (pinned in scripts/requirements/schemathesis.txt) generates requests to both
/// inference APIs from Fuzz/inference-apis.yaml — well-formed ones and ones that break the
/// document — and sends them to a real server with the real model: no answer may be a 5xx, and
/// every answer must be what the document describes (each API's own error envelope included).
@Suite("Inference API fuzzing (schemathesis)")
struct InferenceAPIFuzzTests {
  static let document = TestRepository.file("Tests/HybridAIServerTests/Fuzz/inference-apis.yaml")

  @Test("a bounded schemathesis run against the OpenAI and Gemini endpoints finds no server error and no undocumented answer")
  func fuzzBothAPIs() async throws {
    try Schemathesis.requireInstalled()
    // A short context bounds every answer, including those of requests that name no token limit.
    let server = try await RunningTestServer.start(contextSizePerSequence: 128)
    defer { Task { await server.stop() } }
    let outcome = try await ChildProcess.run(
      URL(fileURLWithPath: "/bin/bash"), [Schemathesis.runner.path, "inference_fuzz", Self.document.path, server.baseURL.absoluteString],
      mergingStandardError: true,
      // Three cases per operation and phase (about 400 requests) in the suite, which shares two
      // cores with everything else; a deeper run: FUZZ_MAX_EXAMPLES=25 scripts/run-tests --filter InferenceAPIFuzzTests.
      environment: ProcessInfo.processInfo.environment.merging(
        ["FUZZ_MAX_EXAMPLES": "3", "FUZZ_REQUEST_TIMEOUT": "300", "FUZZ_TIME_LIMIT": "1200"]) { caller, _ in caller })
    #expect(outcome.status == 0, "\(outcome.output.suffix(6000))")
    #expect(outcome.output.contains("inference_fuzz: PASS"), "\(outcome.output.suffix(2000))")
  }
}
