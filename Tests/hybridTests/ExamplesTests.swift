import Foundation
import HybridAI
import HybridAIProcess
import HybridAIServer
import HybridAIServerTestSupport
import HybridAITestSupport
import Testing

/// The packages in Examples/ depend on HybridAI as a user's package would (by path), are built by
/// `make test` (scripts/build-examples, beside HybridAI's own products) and run here against a server on loopback.
@Suite("Examples: packages that depend on HybridAI")
struct ExamplesTests {
  /// An example's executable, built by scripts/build-examples (make test runs it).
  static func example(_ name: String) throws -> URL {
    try TestRepository.builtProduct(name)
  }

  /// A server on loopback answering both APIs with a scripted cloud model named `cloud`.
  static func cloudServer() async throws -> RunningServer {
    let model = ScriptedLanguageModel(identifier: "cloud", source: .cloud, deltas: ["Blue", " light", " scatters."])
    let served = ServedModel(name: "cloud", model: model, inputTokenLimit: 4096, outputTokenLimit: 1024) { _ in 5 }
    return try await RunningServer.start([GeminiCompatibleAPI(models: [served]), OpenAICompatibleAPI(models: [served])])
  }

  static var environment: [String: String] { ["PATH": "/usr/bin:/bin", "HOME": NSTemporaryDirectory()] }

  @Test("CloudChat: the core and OpenAIModel answer through an OpenAI-compatible server, with no llama.cpp or LiteRT linked")
  func cloudChat() async throws {
    let executable = try Self.example("CloudChat")
    let server = try await Self.cloudServer()
    var environment = Self.environment
    environment["OPENAI_BASE_URL"] = server.baseURL.appendingPathComponent("v1").absoluteString
    let run = try await ChildProcess.run(executable, ["cloud", "Why is the sky blue?"], mergingStandardError: true,
                                         environment: environment)
    await server.stop()
    #expect(run.status == 0, "\(run.output)")
    #expect(run.output.contains("answer: Blue light scatters."), "\(run.output)")
    #expect(run.output.contains("model: cloud (cloud)"), "\(run.output)")
    let ldd = try await ChildProcess.run(URL(fileURLWithPath: "/usr/bin/ldd"), [executable.path])
    for native in ["libllama", "libggml", "libLiteRt", "libpng", "libjpeg"] {
      #expect(!ldd.output.contains(native), "CloudChat links \(native): \(ldd.output)")
    }
  }

  @Test("HybridChat: a hybrid session answers on device with the real model, and in the cloud when the model file is missing")
  func hybridChat() async throws {
    let executable = try Self.example("HybridChat")
    let server = try await Self.cloudServer()
    var environment = Self.environment
    environment["GEMINI_BASE_URL"] = server.baseURL.absoluteString
    let model = try TestRepository.model("SmolLM2-135M-Instruct.Q4_1.gguf")
    let onDevice = try await ChildProcess.run(executable, [model.path, "cloud", "Name a color."], mergingStandardError: true,
                                              environment: environment)
    let missing = TestRepository.file(".build/no-such-model.gguf")
    let cloud = try await ChildProcess.run(executable, [missing.path, "cloud", "Name a color."], mergingStandardError: true,
                                           environment: environment)
    await server.stop()
    #expect(onDevice.status == 0, "\(onDevice.output)")
    #expect(onDevice.output.contains("(on-device)"), "\(onDevice.output)")
    #expect(cloud.status == 0, "\(cloud.output)")
    #expect(cloud.output.contains("answer: Blue light scatters."), "\(cloud.output)")
    #expect(cloud.output.contains("(cloud; "), "the answer says why the on-device model did not answer: \(cloud.output)")
  }
}
