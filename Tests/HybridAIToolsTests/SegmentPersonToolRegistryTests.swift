import Foundation
import HybridAI
import HybridAIServerTestSupport
import HybridAITestSupport
import HybridAITools
import Logging
import ModelDelivery
import Testing
import TFLiteImage

/// `SegmentPersonTool(downloader:modelName:…)` against a real `hybrid serve` registry on
/// 127.0.0.1: the model is deployed with `ModelRegistryAdmin` and fetched by `ModelDownloader`.
@Suite("SegmentPersonTool with a registry")
struct SegmentPersonToolRegistryTests {
  /// Deploys and publishes `file` as `name`; the published version.
  private func deploy(_ file: URL, as name: String, to registry: RunningRegistry) async throws -> RegistryModelVersion {
    let admin = ModelRegistryAdmin(server: registry.baseURL, token: RunningRegistry.adminToken,
                                   logger: ToolTestSupport.quietLogger)
    _ = try await admin.createModel(name: name, description: "MediaPipe selfie segmentation")
    let version = try await admin.uploadVersion(name: name, fileAt: file)
    _ = try await admin.publish(name: name, version: version.version)
    return version
  }

  /// A temporary directory with `pictures/portrait.png` (the sample portrait) and room for a
  /// downloader cache; the caller removes `directory`.
  private func workspace(portraitWidth width: Int, height: Int) throws -> (directory: URL, pictures: URL, cache: URL) {
    let directory = try ToolTestSupport.temporaryDirectory()
    let pictures = directory.appendingPathComponent("pictures", isDirectory: true)
    try FileManager.default.createDirectory(at: pictures, withIntermediateDirectories: true)
    try Bitmap.samplePortrait(width: width, height: height).write(to: pictures.appendingPathComponent("portrait.png"))
    return (directory, pictures, directory.appendingPathComponent("cache", isDirectory: true))
  }

  @Test("the registry's selfie_segmentation makes the same mask as the file's, and stays on the device")
  func segmentsWithTheRegistryModel() async throws {
    let modelPath = try ToolTestSupport.selfieSegmentationModelPath()
    let (directory, pictures, cache) = try workspace(portraitWidth: 320, height: 240)
    defer { try? FileManager.default.removeItem(at: directory) }

    let fileTool = SegmentPersonTool(modelPath: modelPath, allowedDirectories: [pictures],
                                     logger: ToolTestSupport.quietLogger)
    let fromFile = try await fileTool.call(arguments: .init(path: "portrait.png"), context: ToolTestSupport.context())
    let expected = try #require(fromFile.artifacts.first?.data)

    try await RunningRegistry.with(maxUploadBytes: 64 << 20) { registry in
      let version = try await deploy(URL(fileURLWithPath: modelPath), as: "selfie_segmentation", to: registry)
      let downloader = ModelDownloader(server: registry.baseURL, directory: cache, installationID: "tools-test",
                                       logger: ToolTestSupport.quietLogger)
      #expect(try await downloader.listDownloadedModels().isEmpty)

      let tool = SegmentPersonTool(downloader: downloader, allowedDirectories: [pictures],
                                   logger: ToolTestSupport.quietLogger)
      let progress = ProgressLog()
      let output = try await tool.call(arguments: .init(path: "portrait.png"), context: ToolTestSupport.context(progress))
      await downloader.waitForBackgroundUpdates()
      let artifact = try #require(output.artifacts.first)
      #expect(artifact.name == "portrait-mask.png")
      #expect(artifact.mimeType == "image/png")
      #expect(artifact.data == expected, "the delivered model makes exactly the file model's mask")
      #expect(output.description == fromFile.description)
      #expect(progress.fractions.last == 1)

      let downloaded = try await downloader.listDownloadedModels()
      #expect(downloaded.map(\.name) == ["selfie_segmentation"])
      let model = try #require(downloaded.first)
      #expect(model.version == version.version)
      #expect(model.hash == version.sha256)
      #expect(model.path.hasPrefix(cache.path))
      #expect(FileManager.default.contentsEqual(atPath: model.path, andPath: modelPath))

      // A second call uses the copy on the device (and finds it current).
      let again = try await tool.call(arguments: .init(path: "portrait.png"), context: ToolTestSupport.context())
      await downloader.waitForBackgroundUpdates()
      #expect(again.artifacts.first?.data == expected)
      #expect(try await downloader.listDownloadedModels() == downloaded)
    }
  }

  @Test("a model the registry does not have is modelUnavailable, with no artifact and nothing downloaded")
  func unknownModel() async throws {
    let modelPath = try ToolTestSupport.selfieSegmentationModelPath()
    let (directory, pictures, cache) = try workspace(portraitWidth: 64, height: 48)
    defer { try? FileManager.default.removeItem(at: directory) }

    try await RunningRegistry.with(maxUploadBytes: 64 << 20) { registry in
      _ = try await deploy(URL(fileURLWithPath: modelPath), as: "selfie_segmentation", to: registry)
      let downloader = ModelDownloader(server: registry.baseURL, directory: cache, installationID: "tools-test",
                                       logger: ToolTestSupport.quietLogger)
      let tool = SegmentPersonTool(downloader: downloader, modelName: "no_such_model", allowedDirectories: [pictures],
                                   logger: ToolTestSupport.quietLogger)

      var output: ToolOutput?
      let error = await #expect(throws: SegmentPersonToolError.self) {
        output = try await tool.call(arguments: .init(path: "portrait.png"), context: ToolTestSupport.context())
      }
      #expect(output == nil, "no artifact")
      guard case .modelUnavailable(let reason) = error else {
        Issue.record("expected modelUnavailable, got \(String(describing: error))")
        return
      }
      #expect(reason.contains("no_such_model"), "\(reason)")
      await #expect(throws: SegmentPersonToolError.self) {
        _ = try await tool.mask(for: Bitmap.samplePortrait(width: 64, height: 48))
      }
      await downloader.waitForBackgroundUpdates()
      #expect(try await downloader.listDownloadedModels().isEmpty)
    }
  }
}
