import Foundation
import HybridAI
import HybridAIGemini
import HybridAIOnDevice
import HybridCommandLine
import ModelDelivery

/// The custom-model steps: deploy models to the demo server's registry, download them with
/// `ModelDownloader`, run the TensorFlow Lite one, and let the on-device LLM arrive the same way.
extension DemoCommand {
  /// The demo's registry and download folders, emptied at the start of each run so downloads really happen.
  static let deliveryDirectory = URL(fileURLWithPath: ".build/demo/delivery", isDirectory: true)
  static let adminToken = "demo-admin"
  /// The demo server's API key, which guards model information as it guards the Gemini API.
  static let apiKey = "demo-key"

  /// Step 9: deploy the selfie-segmentation model, download it, ask again (local copy, no network).
  func tourModelDelivery(server: URL) async throws -> CustomModel {
    heading("9. Custom models: deploy to the server's registry, download with ModelDownloader")
    let admin = ModelRegistryAdmin(server: server, token: Self.adminToken)
    let file = URL(fileURLWithPath: BootstrapTFLiteModels.path("selfie_segmentation"))
    _ = try await admin.createModel(name: "selfie_segmentation", description: "MediaPipe selfie segmentation", tags: ["vision"])
    let version = try await admin.uploadVersion(name: "selfie_segmentation", fileAt: file)
    _ = try await admin.publish(name: "selfie_segmentation", version: version.version)
    Terminal.write("  deployed selfie_segmentation version \(version.version): \(version.format), \(version.sizeBytes) bytes, "
      + "sha256 \(version.sha256.prefix(16))…, published\n")

    let downloader = ModelDownloader(server: server, directory: Self.deliveryDirectory.appendingPathComponent("downloads"),
                                     apiKey: Self.apiKey)
    let updates = downloader.progress(for: "selfie_segmentation")
    let progress = Task {
      var last: ModelDownloadProgress?
      for await update in updates { last = update }
      return last
    }
    let started = ContinuousClock.now
    let model = try await downloader.getModel(
      name: "selfie_segmentation", downloadType: .latestModel, conditions: ModelDownloadConditions(allowsCellularAccess: false))
    let elapsed = ContinuousClock.now - started
    let finalProgress = await progress.value
    Terminal.write(String(format: "  getModel(.latestModel): version %@ in %.0f ms, %@ bytes received, hash verified\n",
                          model.version, elapsed.seconds * 1000, "\(finalProgress?.bytesReceived ?? 0)"))
    Terminal.write("    ↳ \(model.path)\n")
    let again = try await downloader.getModel(name: "selfie_segmentation", downloadType: .localModel)
    Terminal.write("  getModel(.localModel): \(again.path == model.path ? "the same file, no network" : "a different file?!")\n")
    let latest = try await downloader.getModel(name: "selfie_segmentation", downloadType: .latestModel)
    Terminal.write("  getModel(.latestModel) again: the server answered 304 Not Modified → version \(latest.version)\n")
    return model
  }

  /// Step 11: the on-device LLM delivered by the registry; prefer-on-device uses the cloud until it is here.
  func tourDeliveredLanguageModel(server: URL, cloud: GeminiModel, onDevicePath: String) async -> Bool {
    heading("11. The on-device LLM itself comes from the registry; meanwhile the cloud answers")
    do {
      let admin = ModelRegistryAdmin(server: server, token: Self.adminToken)
      _ = try await admin.createModel(name: "smollm2", description: "SmolLM2-135M-Instruct", tags: ["llm"])
      let version = try await admin.uploadVersion(name: "smollm2", fileAt: URL(fileURLWithPath: onDevicePath))
      _ = try await admin.publish(name: "smollm2", version: version.version)
      Terminal.write("  deployed smollm2 version \(version.version) (\(version.format), \(version.sizeBytes / 1_000_000) MB)\n")

      let downloader = ModelDownloader(server: server, directory: Self.deliveryDirectory.appendingPathComponent("downloads"),
                                     apiKey: Self.apiKey)
      let delivered = SystemLanguageModel(modelFile: downloader.modelFile(named: "smollm2"),
                                          configuration: .init(contextSize: 2048))
      let options = GenerationOptions.hybrid(
        gemini: GenerationConfig(temperature: 0, maxOutputTokens: 16),
        onDevice: Self.onDeviceOptions(maximumResponseTokens: 16))
      let preferOnDevice = HybridModel(primary: delivered, secondary: cloud)
      var asExpected = await ask("Name a colour.", mode: "prefer on-device, weights not here yet", model: preferOnDevice,
                                 options: options, expectedSource: .cloud)
      let deadline = ContinuousClock.now + .seconds(120)
      waiting: while true {
        switch delivered.modelFile?.fileState {
        case .ready?: break waiting
        case .failed(let reason)?: throw DemoDeliveryError.downloadFailed(reason)
        default:
          guard ContinuousClock.now < deadline else { throw DemoDeliveryError.downloadFailed("not ready after 120 s") }
          try await Task.sleep(for: .milliseconds(50))
        }
      }
      Terminal.write("\n  weights downloaded and verified → \(delivered.modelPath)\n")
      Terminal.write("  availability now: \(delivered.availability)\n")
      asExpected = await ask("Name a colour.", mode: "prefer on-device, weights here", model: preferOnDevice,
                             options: options, expectedSource: .onDevice) && asExpected
      return asExpected
    } catch {
      Terminal.write("    ↳ error: \(error)\n")
      return false
    }
  }

}

enum DemoDeliveryError: Error, CustomStringConvertible {
  case downloadFailed(String)

  var description: String {
    switch self {
    case .downloadFailed(let reason): "the delivered model did not arrive: \(reason)"
    }
  }
}
