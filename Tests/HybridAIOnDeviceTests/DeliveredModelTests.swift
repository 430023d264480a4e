import Foundation
import HybridAI
@testable import HybridAIOnDevice
import Synchronization
import Testing

/// A `ModelFileSource` whose state the test sets, standing in for `ModelDownloader` (tested with a
/// real registry in ModelDeliveryTests) so these tests can walk through every state.
private final class SteppedModelFile: ModelFileSource {
  let name = "smollm2"
  private let state = Mutex<ModelFileState>(.notDownloaded)
  private let preparations = Mutex(0)

  var fileState: ModelFileState { state.withLock { $0 } }
  var prepareCount: Int { preparations.withLock { $0 } }
  func prepareFile() { preparations.withLock { $0 += 1 } }
  func set(_ newState: ModelFileState) { state.withLock { $0 = newState } }
}

@Suite("A delivered on-device model")
struct DeliveredModelTests {
  @Test("not downloaded: modelNotReady; reading availability starts nothing, a request or prepareAssets() starts the download")
  func notDownloaded() async throws {
    let file = SteppedModelFile()
    let model = SystemLanguageModel(modelFile: file)
    #expect(model.availability == .unavailable(.modelNotReady))
    #expect(model.availabilityDetail?.contains("not on this device yet") == true)
    #expect(file.prepareCount == 0)
    #expect(model.modelPath.isEmpty)
    #expect(model.modelIdentifier == "smollm2")
    await #expect(throws: GenerationError.self) {
      _ = try await GenerativeModelSession(model: model).respond(to: "Hi")
    }
    #expect(file.prepareCount == 1)
    model.prepareAssets()
    #expect(file.prepareCount == 2)
    // Asked directly (no session's availability check first), the model says what is missing.
    let request = GenerationRequest(transcript: Transcript(), options: GenerationOptions())
    await #expect(throws: OnDeviceModelError.modelNotDownloaded(name: "smollm2")) {
      for try await _ in model.generate(request) {}
    }
  }

  @Test("downloading: modelNotReady with the progress in the detail; prepareAssets() does not start a second download")
  func downloading() {
    let file = SteppedModelFile()
    file.set(.downloading(bytesReceived: 25_000_000, totalBytes: 100_000_000))
    let model = SystemLanguageModel(modelFile: file)
    #expect(model.availability == .unavailable(.modelNotReady))
    #expect(model.availabilityDetail?.contains("25.0 of 100.0 MB (25%)") == true)
    model.prepareAssets()
    #expect(file.prepareCount == 0)
  }

  @Test("a failed download is modelNotReady and is tried again by prepareAssets(), not by reading availability")
  func failed() {
    let file = SteppedModelFile()
    file.set(.failed(reason: "connection refused"))
    let model = SystemLanguageModel(modelFile: file)
    #expect(model.availability == .unavailable(.modelNotReady))
    #expect(model.availabilityDetail?.contains("connection refused") == true)
    #expect(file.prepareCount == 0)
    model.prepareAssets()
    #expect(file.prepareCount == 1)
  }

  @Test("ready: available, and it answers from the delivered file")
  func ready() async throws {
    _ = try TestModel.requireModel()
    let file = SteppedModelFile()
    file.set(.ready(path: TestModel.path, version: "3"))
    let model = SystemLanguageModel(modelFile: file, configuration: .init(contextSize: 512))
    #expect(model.availability == .available)
    #expect(model.modelPath == TestModel.path)
    #expect(model.modelIdentifier == "smollm2-v3")
    let response = try await GenerativeModelSession(model: model).respond(
      to: "Say hi.", options: GenerationOptions(sampling: .greedy, maximumResponseTokens: 4))
    #expect(response.rawResponse.source == .onDevice)
    #expect(!response.content.isEmpty)
  }

  @Test("prefer on-device answers from the secondary model until the file is ready")
  func hybridUsesSecondaryWhileDownloading() async throws {
    _ = try TestModel.requireModel()
    let file = SteppedModelFile()
    file.set(.downloading(bytesReceived: 1, totalBytes: 10))
    let delivered = SystemLanguageModel(modelFile: file, configuration: .init(contextSize: 512))
    let local = SystemLanguageModel(modelPath: TestModel.path, configuration: .init(contextSize: 512))
    let session = GenerativeModelSession(model: HybridModel(primary: delivered, secondary: local))
    let options = GenerationOptions(sampling: .greedy, maximumResponseTokens: 4)
    let whileDownloading = try await session.respond(to: "Say hi.", options: options)
    guard case .unavailable(.modelNotReady, let detail) = whileDownloading.rawResponse.fallback?.reason else {
      Issue.record("expected a fallback for modelNotReady, got \(String(describing: whileDownloading.rawResponse.fallback))")
      return
    }
    #expect(detail?.contains("downloading") == true)

    file.set(.ready(path: TestModel.path, version: "1"))
    let once = try await session.respond(to: "Say hi again.", options: options)
    #expect(once.rawResponse.fallback == nil)
  }
}
