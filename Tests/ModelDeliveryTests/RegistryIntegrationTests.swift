import Foundation
import HybridAI
import HybridAIServerTestSupport
import HybridAITestSupport
import ModelDelivery
import Testing

/// `ModelRegistryAdmin` and `ModelDownloader` against the real registry (`RegistryAPI` in a
/// `HybridServer`) on loopback.
@Suite struct RegistryIntegrationTests {
  struct Environment {
    let registry: RunningRegistry
    let directory: URL

    var admin: ModelRegistryAdmin {
      ModelRegistryAdmin(server: registry.baseURL, token: RunningRegistry.adminToken, httpClient: TestSupport.httpClient)
    }

    func downloader(server: URL? = nil, installationID: String = "test-installation") -> ModelDownloader {
      TestSupport.downloader(server ?? registry.baseURL, directory: directory, installationID: installationID)
    }

    /// Writes `data` to a file and uploads it as a new version of `name`, published when asked.
    func deploy(_ name: String, _ data: Data, publish: Bool = true) async throws -> RegistryModelVersion {
      let file = directory.appendingPathComponent("upload-\(UUID().uuidString)")
      try data.write(to: file)
      defer { try? FileManager.default.removeItem(at: file) }
      if try await admin.modelIfExists(named: name) == nil {
        _ = try await admin.createModel(name: name, description: "test model", tags: ["test"])
      }
      let version = try await admin.uploadVersion(name: name, fileAt: file)
      if publish { _ = try await admin.publish(name: name, version: version.version) }
      return version
    }

    static func make() async throws -> Environment {
      Environment(registry: try await RunningRegistry.start(maxUploadBytes: 64 << 20), directory: try TestSupport.temporaryDirectory())
    }

    func close() async {
      await registry.stop(removingData: true)
      TestSupport.cleanUp(directory)
    }
  }

  /// A minimal TFLite-looking file: a FlatBuffer root offset, then the `TFL3` identifier.
  static func tfliteBytes(_ count: Int, seed: UInt64) -> Data {
    var data = TestSupport.bytes(count, seed: seed)
    data.replaceSubrange(4..<8, with: Data("TFL3".utf8))
    return data
  }

  @Test func theAdminClientManagesModelsVersionsAndRollouts() async throws {
    let environment = try await Environment.make()
    defer { Task { await environment.close() } }
    let admin = environment.admin

    #expect(try await admin.modelIfExists(named: "selfie") == nil)
    let created = try await admin.createModel(name: "selfie", description: "segmentation", tags: ["vision", "beta"])
    #expect(created.name == "selfie")
    #expect(created.description == "segmentation")
    #expect(created.tags == ["vision", "beta"])
    #expect(created.versions.isEmpty)
    #expect(created.servedVersion == nil)
    await #expect(throws: ModelRegistryAdminError.self) { try await admin.createModel(name: "selfie") }
    do {
      _ = try await admin.createModel(name: "selfie")
    } catch ModelRegistryAdminError.alreadyExists {
    } catch {
      Issue.record("expected alreadyExists, got \(error)")
    }

    // Upload (streamed from disk), 3 MiB.
    let data = Self.tfliteBytes(3 << 20, seed: 81)
    let file = environment.directory.appendingPathComponent("selfie.tflite")
    try data.write(to: file)
    let one = try await admin.uploadVersion(name: "selfie", fileAt: file)
    #expect(one.version == "1")
    #expect(one.sizeBytes == Int64(data.count))
    #expect(one.sha256 == (await TestSHA256.hex(data)))
    #expect(one.format == "tflite")
    #expect(!one.isPublished)
    let two = try await admin.uploadVersion(name: "selfie", fileAt: file)   // the same bytes again: a new version
    #expect(two.version == "2")
    #expect(two.sha256 == one.sha256)

    var model = try await admin.publish(name: "selfie", version: "1")
    #expect(model.version("1")?.isPublished == true)
    #expect(model.servedVersion == "1")
    model = try await admin.publish(name: "selfie", version: "2")
    #expect(model.servedVersion == "2")
    model = try await admin.setRollout(name: "selfie", splits: [RolloutSplit(version: "1", percent: 90),
                                                                 RolloutSplit(version: "2", percent: 10)])
    #expect(model.rollout?.splits == [RolloutSplit(version: "1", percent: 90), RolloutSplit(version: "2", percent: 10)])
    await #expect(throws: ModelRegistryAdminError.self) {
      try await admin.setRollout(name: "selfie", splits: [RolloutSplit(version: "1", percent: 50)])   // not 100 %
    }
    model = try await admin.clearRollout(name: "selfie")
    #expect(model.rollout == nil)
    model = try await admin.unpublish(name: "selfie", version: "2")
    #expect(model.servedVersion == "1")

    #expect(try await admin.listModels().map(\.name) == ["selfie"])
    #expect(try await admin.model(named: "selfie").versions.map(\.version) == ["1", "2"])
    let fetched = try await admin.version("2", ofModel: "selfie")
    #expect(fetched.version == "2" && fetched.sha256 == one.sha256 && fetched.sizeBytes == Int64(data.count))
    #expect(fetched.format == "tflite" && fetched.state == "draft")
    #expect(try await admin.version("1", ofModel: "selfie").isPublished)
    try await admin.deleteVersion(name: "selfie", version: "2")
    #expect(try await admin.model(named: "selfie").versions.map(\.version) == ["1"])
    await #expect {
      try await admin.version("2", ofModel: "selfie")
    } throws: { error in
      guard case ModelRegistryAdminError.notFound = error else { return false }
      return true
    }
    try await admin.deleteModel(name: "selfie")
    #expect(try await admin.listModels().isEmpty)
    await #expect(throws: ModelRegistryAdminError.self) { try await admin.model(named: "selfie") }
  }

  @Test func theAdminClientReportsTypedErrors() async throws {
    let environment = try await Environment.make()
    defer { Task { await environment.close() } }
    let wrongToken = ModelRegistryAdmin(server: environment.registry.baseURL, token: "wrong",
                                        httpClient: TestSupport.httpClient)
    do {
      _ = try await wrongToken.listModels()
      Issue.record("expected unauthenticated")
    } catch ModelRegistryAdminError.unauthenticated {
    }
    do {
      _ = try await environment.admin.model(named: "missing")
      Issue.record("expected notFound")
    } catch ModelRegistryAdminError.notFound {
    }
    await #expect(throws: ModelRegistryAdminError.invalidModelName("../x")) {
      try await environment.admin.createModel(name: "../x")
    }
    do {
      _ = try await environment.admin.publish(name: "missing", version: "abc")
      Issue.record("expected invalidArgument")
    } catch ModelRegistryAdminError.invalidArgument {
    }
    do {
      _ = try await environment.admin.uploadVersion(name: "m", fileAt: URL(fileURLWithPath: "/nonexistent/file"))
      Issue.record("expected fileUnreadable")
    } catch ModelRegistryAdminError.fileUnreadable(let path, let code) {
      #expect(path == "/nonexistent/file")
      #expect(code == ENOENT)
    }
    let off = try await RunningRegistry.start(adminToken: nil, maxUploadBytes: 64 << 20)
    defer { Task { await off.stop(removingData: true) } }
    do {
      _ = try await ModelRegistryAdmin(server: off.baseURL, token: "x", httpClient: TestSupport.httpClient).listModels()
      Issue.record("expected permissionDenied")
    } catch ModelRegistryAdminError.permissionDenied {
    }
  }

  @Test func downloadTypesAgainstTheRealRegistry() async throws {
    let environment = try await Environment.make()
    defer { Task { await environment.close() } }
    let v1Data = Self.tfliteBytes(1 << 20, seed: 82)
    _ = try await environment.deploy("selfie", v1Data)
    let downloader = environment.downloader()

    let v1 = try await downloader.getModel(name: "selfie", downloadType: .localModelUpdateInBackground)  // none: blocks
    #expect(v1.version == "1")
    #expect(v1.path.hasSuffix(".tflite"))
    #expect(try Data(contentsOf: URL(fileURLWithPath: v1.path)) == v1Data)
    #expect(try await downloader.getModel(name: "selfie", downloadType: .latestModel) == v1)   // 304

    let v2Data = Self.tfliteBytes(2 << 20, seed: 83)
    _ = try await environment.deploy("selfie", v2Data)
    #expect(try await downloader.getModel(name: "selfie", downloadType: .localModel) == v1)
    #expect(try await downloader.getModel(name: "selfie", downloadType: .localModelUpdateInBackground) == v1)
    await downloader.waitForBackgroundUpdates()
    let v2 = try await downloader.getModel(name: "selfie", downloadType: .localModel)
    #expect(v2.version == "2")
    #expect(try Data(contentsOf: URL(fileURLWithPath: v2.path)) == v2Data)
    #expect(!FileManager.default.fileExists(atPath: v1.path))

    // Unpublished everywhere: the registry has nothing, the device keeps its copy.
    _ = try await environment.admin.unpublish(name: "selfie", version: "1")
    _ = try await environment.admin.unpublish(name: "selfie", version: "2")
    await #expect(throws: ModelDownloadError.modelNotFound(name: "selfie")) {
      try await downloader.getModel(name: "selfie", downloadType: .latestModel)
    }
    #expect(try await downloader.getModel(name: "selfie", downloadType: .localModel) == v2)
  }

  @Test func rolloutsPickTheVersionByInstallation() async throws {
    let environment = try await Environment.make()
    defer { Task { await environment.close() } }
    let one = try await environment.deploy("ab", TestSupport.bytes(10_000, seed: 84))
    let two = try await environment.deploy("ab", TestSupport.bytes(20_000, seed: 85))

    // 100 % to version 1: everyone gets 1, though 2 is newer.
    _ = try await environment.admin.setRollout(name: "ab", splits: [RolloutSplit(version: "1", percent: 100)])
    #expect(try await environment.downloader().getModel(name: "ab", downloadType: .latestModel).hash == one.sha256)

    // 50/50: installations split, each one stably.
    _ = try await environment.admin.setRollout(name: "ab", splits: [RolloutSplit(version: "1", percent: 50),
                                                                     RolloutSplit(version: "2", percent: 50)])
    var versions: [String: String] = [:]
    for index in 0..<16 {
      let id = "installation-\(index)"
      let directory = environment.directory.appendingPathComponent("device-\(index)")
      let downloader = TestSupport.downloader(environment.registry.baseURL, directory: directory, installationID: id)
      versions[id] = try await downloader.getModel(name: "ab", downloadType: .latestModel).version
      #expect(try await downloader.getModel(name: "ab", downloadType: .latestModel).version == versions[id])
    }
    #expect(Set(versions.values) == ["1", "2"])

    _ = try await environment.admin.clearRollout(name: "ab")
    #expect(try await environment.downloader().getModel(name: "ab", downloadType: .latestModel).hash == two.sha256)
  }

  @Test func cutConnectionsResumeAgainstTheRealRegistry() async throws {
    let environment = try await Environment.make()
    defer { Task { await environment.close() } }
    let size = 4 << 20
    let data = TestSupport.bytes(size, seed: 86)
    let version = try await environment.deploy("big", data)
    let proxy = try await CuttingProxy.start(to: environment.registry.port)
    defer { Task { await proxy.stop() } }
    // Info answers are small; the cuts fall in the file's bytes (20 of them, seeded).
    var random = SeededRandom(seed: 2026)
    let cuts = Set((0..<20).map { _ in Int.random(in: 4_096..<size, using: &random) }).sorted()
    proxy.cut(atOffsetsFromNow: cuts)
    let downloader = environment.downloader(server: proxy.baseURL)

    let model = try await downloader.getModel(name: "big", downloadType: .latestModel)

    #expect(model.hash == version.sha256)
    let installedSHA = await TestSHA256.hex(try Data(contentsOf: URL(fileURLWithPath: model.path)))
    #expect(installedSHA == version.sha256)
    #expect(proxy.cutsMade == cuts.count)
    #expect(proxy.bytesToClients <= size + cuts.count * (1 << 20))
  }

  @Test func modelFileWaitsForTheRegistry() async throws {
    let environment = try await Environment.make()
    defer { Task { await environment.close() } }
    let downloader = environment.downloader()
    let file = downloader.modelFile(named: "weights")
    #expect(file.fileState == .notDownloaded)
    let version = try await environment.deploy("weights", Data("GGUF and then some".utf8))

    file.prepareFile()
    await downloader.waitForBackgroundUpdates()

    #expect(file.fileState == .ready(path: environment.directory.appendingPathComponent("models/weights/\(version.sha256).gguf").path,
                                     version: "1"))
  }
}
