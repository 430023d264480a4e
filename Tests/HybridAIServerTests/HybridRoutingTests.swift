import Foundation
import HybridAI
import HybridAIGemini
import HybridAIOnDevice
import HybridAIServerTestSupport
import HybridAITestSupport
import Synchronization
import Testing

/// The routing rules of GUIDE §1 with real parts: the real on-device model, our real server on
/// loopback (or a scripted failing one), real sockets with nothing listening.
@Suite("Hybrid routing with real models", .serialized)
struct HybridRoutingTests {
  static let fastRetries = GeminiModel.Configuration(
    connectTimeout: .seconds(30), readTimeout: RunningTestServer.patientReadTimeout,
    retryPolicy: GeminiModel.RetryPolicy(maxAttempts: 3, initialBackoff: .milliseconds(5), maxBackoff: .milliseconds(20)))

  static func onDevice(path: String = RunningTestServer.modelPath, enabled: Bool = true) -> ObservedLanguageModel<SystemLanguageModel> {
    ObservedLanguageModel(SystemLanguageModel(modelPath: path, configuration: .init(contextSize: 1024, isEnabled: enabled)))
  }

  static func cloud(_ url: URL, name: String = RunningTestServer.modelName, key: String? = nil) -> GeminiModel {
    GeminiModel(name: name, apiKey: key, baseURL: url, configuration: fastRetries)
  }

  static let options = GenerationOptions.hybrid(
    gemini: GenerationConfig(temperature: 0, topK: 1, maxOutputTokens: 6),
    onDevice: GenerationOptions(sampling: .greedy, maximumResponseTokens: 6))

  // MARK: prefer on-device

  @Test("prefer on-device: model file missing → the cloud answers and says so")
  func missingModelFallsBackToCloud() async throws {
    let server = try await RunningTestServer.start()
    defer { Task { await server.stop() } }
    let device = Self.onDevice(path: "/nonexistent/model.gguf")
    let session = GenerativeModelSession(model: .hybrid(primary: device, secondary: Self.cloud(server.baseURL)))
    let response = try await session.respond(to: "Name a colour.", options: Self.options)
    #expect(!response.content.isEmpty)
    #expect(response.rawResponse.source == .cloud)
    #expect(response.rawResponse.modelVersion == RunningTestServer.modelName)
    #expect(response.rawResponse.fallback?.reason == .unavailable(.modelNotReady, detail: "no model file at /nonexistent/model.gguf"))
    #expect(device.calls == 0)
  }

  @Test("prefer on-device: model disabled → the cloud answers")
  func disabledModelFallsBackToCloud() async throws {
    let server = try await RunningTestServer.start()
    defer { Task { await server.stop() } }
    let session = GenerativeModelSession(model: .hybrid(primary: Self.onDevice(enabled: false), secondary: Self.cloud(server.baseURL)))
    let response = try await session.respond(to: "Name a colour.", options: Self.options)
    #expect(response.rawResponse.source == .cloud)
    guard case .unavailable(.disabled, _)? = response.rawResponse.fallback?.reason else {
      Issue.record("expected a disabled fallback, got \(String(describing: response.rawResponse.fallback))")
      return
    }
  }

  // MARK: prefer cloud

  @Test("prefer cloud: nothing listening → the on-device model answers and says so")
  func refusedConnectionFallsBackToOnDevice() async throws {
    let refusing = try RefusingPort()
    defer { refusing.close() }
    let device = Self.onDevice()
    let session = GenerativeModelSession(model: .hybrid(
      primary: Self.cloud(URL(string: "http://127.0.0.1:\(refusing.port)")!), secondary: device))
    let response = try await session.respond(to: "Name a colour.", options: Self.options)
    #expect(response.rawResponse.source == .onDevice)
    #expect(response.rawResponse.modelVersion.contains("SmolLM2"))
    #expect(response.rawResponse.fallback?.reason == .offline(.connectionRefused))
    #expect(response.usage.outputTokens <= 6)
    #expect(device.calls == 1)
  }

  @Test("prefer cloud: a cloud that answers 400, 403, 429 (after retries) or blocks for safety throws; no fallback",
        arguments: [
          (400, TestHTTPServer.googleError(code: 400, status: "INVALID_ARGUMENT", message: "bad")),
          (403, TestHTTPServer.googleError(code: 403, status: "PERMISSION_DENIED", message: "no")),
          (429, TestHTTPServer.googleError(code: 429, status: "RESOURCE_EXHAUSTED", message: "quota")),
          (200, #"{"candidates": [{"finishReason": "SAFETY", "index": 0}], "modelVersion": "x"}"#),
          (200, #"{"promptFeedback": {"blockReason": "SAFETY"}, "modelVersion": "x"}"#),
        ])
  func cloudRefusalsAreThrown(status: Int, body: String) async throws {
    let scripted = try await TestHTTPServer.start(replying: .json(body, status: status))
    defer { Task { await scripted.stop() } }
    let device = Self.onDevice()
    let session = GenerativeModelSession(model: .hybrid(primary: Self.cloud(scripted.baseURL), secondary: device))
    // Failures with a Foundation Models meaning reach the caller as GenerationError; the rest as GeminiError.
    let error = await #expect(throws: (any Error).self) { try await session.respond(to: "hi", options: Self.options) }
    #expect((error as? GeminiError)?.offlineReason == nil)
    switch (status, error) {
    case (400, GeminiError.invalidArgument?), (403, GeminiError.permissionDenied?), (429, GenerationError.rateLimited?),
         (200, GenerationError.guardrailViolation?): break
    default: Issue.record("unexpected error for HTTP \(status): \(String(describing: error))")
    }
    #expect(device.calls == 0)
    #expect(session.transcript.isEmpty)
  }

  @Test("prefer cloud: an SSE stream cut after the first chunk is an error, not a fallback")
  func streamCutIsNotAFallback() async throws {
    let chunk = #"{"candidates":[{"content":{"role":"model","parts":[{"text":"Hel"}]}}],"modelVersion":"scripted"}"#
    let scripted = try await TestHTTPServer.start(replying: .sse([chunk], end: .cut))
    defer { Task { await scripted.stop() } }
    let device = Self.onDevice()
    let session = GenerativeModelSession(model: .hybrid(primary: Self.cloud(scripted.baseURL), secondary: device))
    var snapshots: [String] = []
    let error = await #expect(throws: GeminiError.self) {
      for try await snapshot in session.streamResponse(to: "hi", options: Self.options) { snapshots.append(snapshot.content) }
    }
    #expect(snapshots == ["Hel"])
    #expect(error?.offlineReason == nil)
    #expect(device.calls == 0)
  }

  @Test("cancellation never falls back")
  func cancellationIsNotAFallback() async throws {
    let server = try await RunningTestServer.start()
    defer { Task { await server.stop() } }
    let device = Self.onDevice()
    let session = GenerativeModelSession(model: .hybrid(primary: Self.cloud(server.baseURL), secondary: device))
    let long = GenerationOptions.gemini(GenerationConfig(temperature: 0, maxOutputTokens: 400))
    let task = Task {
      for try await _ in session.streamResponse(to: "Write a very long story about the sea.", options: long) {}
    }
    while server.log.requests.withLock({ $0.isEmpty }) { try await Task.sleep(for: .milliseconds(5)) }
    task.cancel()
    await #expect(throws: CancellationError.self) { try await task.value }
    #expect(device.calls == 0)
    #expect(!session.isResponding)
  }

  // MARK: single-model modes

  @Test("only-modes never fall back and say why")
  func singleModelModes() async throws {
    let refusing = try RefusingPort()
    defer { refusing.close() }
    let onlyCloud = GenerativeModelSession(model: Self.cloud(URL(string: "http://127.0.0.1:\(refusing.port)")!))
    let offline = await #expect(throws: GeminiError.self) { try await onlyCloud.respond(to: "hi", options: Self.options) }
    #expect(offline?.offlineReason == .connectionRefused)

    let onlyDevice = GenerativeModelSession(model: Self.onDevice(path: "/nonexistent/model.gguf"))
    await #expect(throws: GenerationError.modelUnavailable(.modelNotReady, detail: "no model file at /nonexistent/model.gguf")) {
      try await onlyDevice.respond(to: "hi", options: Self.options)
    }
  }

  // MARK: options and transcripts

  @Test("per-request options reach the right backend")
  func optionsReachTheRightBackend() async throws {
    let server = try await RunningTestServer.start()
    defer { Task { await server.stop() } }
    let cloud = Self.cloud(server.baseURL)
    let options = GenerationOptions.hybrid(
      gemini: GenerationConfig(temperature: 0.25, topK: 1, maxOutputTokens: 5, stopSequences: ["zebra"]),
      onDevice: GenerationOptions(sampling: .greedy, maximumResponseTokens: 3))

    // Prefer cloud: the server gets the Gemini part.
    let viaCloud = try await GenerativeModelSession(model: .hybrid(primary: cloud, secondary: Self.onDevice()))
      .respond(to: "Count to ten.", options: options)
    let config = try #require(server.lastRequest?.generationConfig)
    #expect(config.temperature == 0.25 && config.maxOutputTokens == 5 && config.stopSequences == ["zebra"])
    #expect(viaCloud.usage.outputTokens <= 5 && viaCloud.rawResponse.source == .cloud)

    // Prefer on-device: the on-device model gets its own part; the server is not asked.
    let before = server.log.requests.withLock { $0.count }
    let viaDevice = try await GenerativeModelSession(model: .hybrid(primary: Self.onDevice(), secondary: cloud))
      .respond(to: "Count to ten.", options: options)
    #expect(viaDevice.rawResponse.source == .onDevice && viaDevice.usage.outputTokens == 3)
    #expect(server.log.requests.withLock { $0.count } == before)

    // On-device-only options do not leak into the cloud request.
    _ = try await GenerativeModelSession(model: cloud)
      .respond(to: "Hi", options: .onDevice(GenerationOptions(temperature: 0.9, maximumResponseTokens: 2)))
    #expect(server.lastRequest?.generationConfig?.temperature != 0.9)
    #expect(server.lastRequest?.generationConfig?.maxOutputTokens != 2)
  }

  @Test("the transcript moves between models: an on-device turn is sent to the cloud as history")
  func transcriptMovesToTheCloud() async throws {
    let server = try await RunningTestServer.start()
    defer { Task { await server.stop() } }
    let device = GenerativeModelSession(model: Self.onDevice())
    let first = try await device.respond(to: "My name is Ada.", options: Self.options)
    let cloud = GenerativeModelSession(model: Self.cloud(server.baseURL), transcript: device.transcript)
    let second = try await cloud.respond(to: "What is my name?", options: Self.options)
    let contents = try #require(server.lastRequest?.contents)
    #expect(contents.map(\.role) == ["user", "model", "user"])
    #expect(contents[1].text == first.content)
    #expect(second.rawResponse.source == .cloud)
    let versions = cloud.transcript.compactMap { entry -> String? in
      if case .response(let response) = entry { response.modelVersion } else { nil }
    }
    #expect(versions == [first.rawResponse.modelVersion, RunningTestServer.modelName])
  }
}

/// A loopback port that refuses connections: bound but not listening, held until `close()`, so no
/// server started meanwhile by a parallel test can take it.
final class RefusingPort: Sendable {
  let port: Int
  private let descriptor: Int32

  init() throws {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let ok = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
    }
    guard ok else { _ = Glibc.close(fd); throw POSIXError(.EADDRINUSE) }
    descriptor = fd
    port = Int(UInt16(bigEndian: address.sin_port))
  }

  func close() { _ = Glibc.close(descriptor) }
}
