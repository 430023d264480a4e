import Foundation
import HybridAI
import HybridAIOnDevice
import HybridAIServerTestSupport
import HybridAITestSupport
import ModelDelivery
import Testing
import TFLite

/// Firebase ML's custom-model flow end to end, on real parts: deploy a .tflite model to `hybrid serve`'s registry,
/// `getModel` it onto the device, run it with `Interpreter(modelPath:)`; and the on-device LLM
/// delivered the same way.
@Suite("Seed flow: registry → ModelDownloader → Interpreter / SystemLanguageModel")
struct SeedEndToEndTests {
  /// Runs selfie segmentation on a fixed gradient picture and returns the output tensor's bytes.
  static func segment(modelPath: String) throws -> (shape: [Int], data: Data) {
    let interpreter = try Interpreter(modelPath: modelPath)
    try interpreter.allocateTensors()
    let input = try interpreter.input(at: 0)
    let count = input.shape.dimensions.reduce(1, *)
    let pixels = (0..<count).map { Float(($0 * 7919) % 256) / 255 }
    try interpreter.copy(pixels.withUnsafeBufferPointer { Data(buffer: $0) }, toInputAt: 0)
    try interpreter.invoke()
    let output = try interpreter.output(at: 0)
    return (output.shape.dimensions, output.data)
  }

  @Test("deploy selfie_segmentation, getModel(.localModelUpdateInBackground), Interpreter(modelPath:) runs it like the original")
  func tfliteModelFromTheRegistry() async throws {
    let original = try TestRepository.model("tflite/selfie_segmentation.tflite")
    let registry = try await RunningRegistry.start(maxUploadBytes: 64 << 20)
    let directory = try TestSupport.temporaryDirectory()
    defer {
      TestSupport.cleanUp(directory)
      Task { await registry.stop(removingData: true) }
    }
    let admin = ModelRegistryAdmin(server: registry.baseURL, token: RunningRegistry.adminToken, httpClient: TestSupport.httpClient)
    _ = try await admin.createModel(name: "selfie_segmentation", description: "MediaPipe selfie segmentation")
    let version = try await admin.uploadVersion(name: "selfie_segmentation", fileAt: original)
    #expect(version.format == "tflite")
    _ = try await admin.publish(name: "selfie_segmentation", version: version.version)

    // The real network probe: loopback is neither cellular nor metered.
    let downloader = ModelDownloader(server: registry.baseURL, directory: directory, httpClient: TestSupport.httpClient)
    let model = try await downloader.getModel(
      name: "selfie_segmentation", downloadType: .localModelUpdateInBackground,
      conditions: ModelDownloadConditions(allowsCellularAccess: false))
    #expect(model.version == version.version)
    #expect(model.hash == version.sha256)
    #expect(model.path.hasPrefix(directory.path))

    let downloaded = try Self.segment(modelPath: model.path)
    let reference = try Self.segment(modelPath: original.path)
    #expect(downloaded.shape == [1, 256, 256, 1])
    #expect(downloaded.data == reference.data, "the delivered model computes exactly what the original does")
  }

  @Test("SystemLanguageModel(modelFile:) is modelNotReady until the registry's GGUF arrives, then answers on device")
  func languageModelFromTheRegistry() async throws {
    let weights = URL(fileURLWithPath: ModelLocator.defaultModelPath())
    try #require(FileManager.default.fileExists(atPath: weights.path), "run scripts/bootstrap (make test does)")
    let registry = try await RunningRegistry.start(maxUploadBytes: 512 << 20)
    let directory = try TestSupport.temporaryDirectory()
    defer {
      TestSupport.cleanUp(directory)
      Task { await registry.stop(removingData: true) }
    }
    let admin = ModelRegistryAdmin(server: registry.baseURL, token: RunningRegistry.adminToken, httpClient: TestSupport.httpClient)
    _ = try await admin.createModel(name: "smollm2")
    let version = try await admin.uploadVersion(name: "smollm2", fileAt: weights)
    #expect(version.format == "gguf")
    _ = try await admin.publish(name: "smollm2", version: version.version)

    let downloader = TestSupport.downloader(registry.baseURL, directory: directory)
    let model = SystemLanguageModel(modelFile: downloader.modelFile(named: "smollm2"), configuration: .init(contextSize: 512))
    #expect(model.availability == .unavailable(.modelNotReady), "not here yet")
    model.prepareAssets()   // reading availability starts nothing; this starts the download
    #expect(await TestSupport.eventually(upTo: .seconds(60)) { model.isAvailable }, "\(model.availabilityDetail ?? "")")
    #expect(FileManager.default.contentsEqual(atPath: model.modelPath, andPath: weights.path))

    let response = try await GenerativeModelSession(model: model).respond(
      to: "Say hi.", options: GenerationOptions(sampling: .greedy, maximumResponseTokens: 4))
    #expect(response.rawResponse.source == .onDevice)
    #expect(response.rawResponse.modelVersion == "smollm2-v\(version.version)")
  }
}
