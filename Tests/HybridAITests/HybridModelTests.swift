import HybridAI
import HybridAITestSupport
import Testing

/// The routing rules of GUIDE §1 on scripted models; the same rules with the real on-device model
/// and a real server are tested in HybridAIServerTests.
@Suite("HybridModel routing")
struct HybridModelTests {
  static let offline = ScriptedCloudError(offlineReason: .connectionRefused)
  static let rejected = ScriptedCloudError(offlineReason: nil, status: 400)

  func onDevice(_ availability: ModelAvailability = .available, support: RequestSupport = .supported,
                delay: Duration = .zero) -> ScriptedLanguageModel {
    ScriptedLanguageModel(identifier: "device", source: .onDevice, deltas: ["on", " device"],
                          availability: availability, support: support, delay: delay)
  }

  func cloud(failure: (any Error & Sendable)? = nil, failAfterDeltas: Int = 0, delay: Duration = .zero) -> ScriptedLanguageModel {
    ScriptedLanguageModel(identifier: "cloud", source: .cloud, deltas: ["in", " the", " cloud"], delay: delay,
                          failure: failure, failAfterDeltas: failAfterDeltas)
  }

  @Test("prefer on-device: the on-device model answers when it can; the cloud is not asked")
  func preferOnDeviceUsesOnDevice() async throws {
    let device = onDevice(), remote = cloud()
    let response = try await GenerativeModelSession(model: .hybrid(primary: device, secondary: remote)).respond(to: "hi")
    #expect(response.content == "on device")
    #expect(response.rawResponse.modelVersion == "device-1")
    #expect(response.rawResponse.source == .onDevice)
    #expect(response.rawResponse.fallback == nil)
    #expect(remote.requestCount == 0)
  }

  @Test("prefer on-device: each unavailable reason falls back to the cloud and says why",
        arguments: [ModelAvailability.UnavailableReason.modelNotReady, .disabled, .deviceNotEligible, .invalidModelFile])
  func preferOnDeviceFallsBackWhenUnavailable(reason: ModelAvailability.UnavailableReason) async throws {
    let device = onDevice(.unavailable(reason)), remote = cloud()
    let response = try await GenerativeModelSession(model: .hybrid(primary: device, secondary: remote)).respond(to: "hi")
    #expect(response.content == "in the cloud")
    #expect(response.rawResponse.source == .cloud)
    #expect(response.rawResponse.fallback == Fallback(from: "device", reason: .unavailable(reason, detail: nil)))
    #expect(device.requestCount == 0)
  }

  @Test("prefer on-device: a request the on-device model does not support goes to the cloud")
  func preferOnDeviceFallsBackWhenUnsupported() async throws {
    let tooLong = UnsupportedReason.exceedsContextWindow(promptTokens: 5000, contextSize: 4096)
    let device = onDevice(support: .unsupported(tooLong)), remote = cloud()
    let response = try await GenerativeModelSession(model: .hybrid(primary: device, secondary: remote)).respond(to: "hi")
    #expect(response.content == "in the cloud")
    #expect(response.rawResponse.fallback?.reason == .unsupported(tooLong.description))
    #expect(device.requestCount == 0)
  }

  @Test("prefer cloud: an offline cloud falls back to on-device and says why")
  func preferCloudFallsBackWhenOffline() async throws {
    let remote = cloud(failure: Self.offline), device = onDevice()
    let response = try await GenerativeModelSession(model: .hybrid(primary: remote, secondary: device)).respond(to: "hi")
    #expect(response.content == "on device")
    #expect(response.rawResponse.source == .onDevice)
    #expect(response.rawResponse.fallback == Fallback(from: "cloud", reason: .offline(.connectionRefused)))
    #expect(remote.requestCount == 1 && device.requestCount == 1)
  }

  @Test("prefer cloud: a cloud that answered with an error throws; no fallback")
  func preferCloudThrowsOtherErrors() async throws {
    let remote = cloud(failure: Self.rejected), device = onDevice()
    let session = GenerativeModelSession(model: .hybrid(primary: remote, secondary: device))
    await #expect(throws: Self.rejected) { try await session.respond(to: "hi") }
    #expect(device.requestCount == 0)
    #expect(session.transcript.isEmpty)
  }

  @Test("prefer cloud: an offline error after the first chunk throws; streams fall back only before it")
  func noFallbackAfterFirstChunk() async throws {
    let remote = cloud(failure: Self.offline, failAfterDeltas: 1), device = onDevice()
    let session = GenerativeModelSession(model: .hybrid(primary: remote, secondary: device))
    var seen: [String] = []
    await #expect(throws: Self.offline) {
      for try await snapshot in session.streamResponse(to: "hi") { seen.append(snapshot.content) }
    }
    #expect(seen == ["in"])
    #expect(device.requestCount == 0)
  }

  @Test("cancellation never falls back")
  func cancellationDoesNotFallBack() async throws {
    let remote = cloud(delay: .seconds(30)), device = onDevice()
    let session = GenerativeModelSession(model: .hybrid(primary: remote, secondary: device))
    let task = Task { try await session.respond(to: "hi") }
    while remote.requestCount == 0 { try await Task.sleep(for: .milliseconds(1)) }
    task.cancel()
    await #expect(throws: CancellationError.self) { try await task.value }
    while !remote.recording.sawCancellation { try await Task.sleep(for: .milliseconds(1)) }
    #expect(device.requestCount == 0)
  }

  @Test("single-model sessions never fall back: typed errors say why")
  func singleModelModesDoNotFallBack() async throws {
    let device = onDevice(.unavailable(.modelNotReady))
    await #expect(throws: GenerationError.modelUnavailable(.modelNotReady, detail: "device")) {
      try await GenerativeModelSession(model: device).respond(to: "hi")
    }
    let remote = cloud(failure: Self.offline)
    await #expect(throws: Self.offline) { try await GenerativeModelSession(model: remote).respond(to: "hi") }
  }

  @Test("both models unavailable: the session reports the secondary's reason")
  func bothUnavailable() async throws {
    let model = HybridModel(primary: onDevice(.unavailable(.disabled)),
                            secondary: ScriptedLanguageModel(identifier: "cloud", source: .cloud, availability: .unavailable(.modelNotReady)))
    #expect(model.availability == .unavailable(.modelNotReady))
    #expect(model.availabilityDetail?.contains("device") == true)
    await #expect(throws: GenerationError.self) { try await GenerativeModelSession(model: model).respond(to: "hi") }
  }

  @Test("each request is routed afresh and the transcript moves between models")
  func transcriptCarriesOver() async throws {
    let remote = cloud(failure: Self.offline), device = onDevice()
    let session = GenerativeModelSession(model: .hybrid(primary: device, secondary: remote))
    try await session.respond(to: "first")
    let onlyCloud = cloud()
    let cloudSession = GenerativeModelSession(model: onlyCloud, transcript: session.transcript)
    let second = try await cloudSession.respond(to: "second")
    #expect(second.rawResponse.modelVersion == "cloud-1")
    let sent = try #require(onlyCloud.recording.requests.first)
    #expect(sent.transcript.map(\.text) == ["first", "on device", "second"])
    let versions = cloudSession.transcript.compactMap { entry -> String? in
      if case .response(let response) = entry { return response.modelVersion } else { return nil }
    }
    #expect(versions == ["device-1", "cloud-1"])
  }

  @Test("per-request options: each backend gets its own part")
  func optionsAreScoped() {
    let onDeviceOnly = GenerationOptions.onDevice(GenerationOptions(temperature: 0.3))
    #expect(onDeviceOnly.genericOptions(for: .onDevice).temperature == 0.3)
    #expect(onDeviceOnly.genericOptions(for: .cloud).temperature == nil)
    let everywhere = GenerationOptions(temperature: 0.5)
    #expect(everywhere.genericOptions(for: .cloud).temperature == 0.5)
  }

  @Test("model-specific options round-trip through the options and the transcript JSON")
  func modelSpecificOptionsRoundTrip() throws {
    struct Vendor: ModelSpecificOptions { static let optionsKey = "vendor"; var knob: Int }
    var options = GenerationOptions(temperature: 0.2)
    options[Vendor.self] = Vendor(knob: 7)
    #expect(options[Vendor.self]?.knob == 7)
    var transcript = Transcript()
    transcript.append(.prompt(Transcript.Prompt(text: "hi", options: options)))
    let decoded = try Transcript(jsonData: transcript.jsonData())
    guard case .prompt(let prompt) = decoded.first else { Issue.record("no prompt"); return }
    #expect(prompt.options[Vendor.self]?.knob == 7)
    #expect(prompt.options == options)
    options[Vendor.self] = nil
    #expect(options == GenerationOptions(temperature: 0.2))
  }
}
