import Foundation
import HybridAI
import ModelDelivery
import Testing

/// The three download types, exactly as Firebase ML defines them, against the faulty server (with
/// no faults).
@Suite struct DownloadTypeTests {
  @Test func latestModelDownloadsVerifiesAndInstalls() async throws {
    let environment = try await FaultyEnvironment.make()
    defer { Task { await environment.close() } }
    let data = TestSupport.bytes(1 << 20, seed: 1)
    let (version, sha) = await environment.server.publish("selfie", data: data)
    let downloader = environment.downloader()

    let model = try await downloader.getModel(name: "selfie", downloadType: .latestModel)

    #expect(model.name == "selfie")
    #expect(model.version == version)
    #expect(model.hash == sha)
    #expect(model.size == Int64(data.count))
    #expect(try Data(contentsOf: URL(fileURLWithPath: model.path)) == data)
    #expect(model.path.hasPrefix(environment.modelsDirectory.path))
    #expect(TestSupport.files(of: "selfie", in: environment.directory) == ["model.json", "\(sha).bin", ".lock"])
    let info = try #require(environment.server.requests.first)
    #expect(info.header("X-HybridAI-Installation-Id") == "test-installation")
    #expect(info.header("If-None-Match") == nil)
    #expect(try await downloader.listDownloadedModels() == [model])
  }

  @Test func latestModelWithTheCurrentVersionIsAnsweredNotModified() async throws {
    let environment = try await FaultyEnvironment.make()
    defer { Task { await environment.close() } }
    let (_, sha) = await environment.server.publish("m", data: TestSupport.bytes(200_000, seed: 2))
    let downloader = environment.downloader()
    let first = try await downloader.getModel(name: "m", downloadType: .latestModel)

    let second = try await downloader.getModel(name: "m", downloadType: .latestModel)

    #expect(second == first)
    let stats = environment.server.stats
    #expect(stats.infoRequests == 2)
    #expect(stats.notModified == 1)
    #expect(stats.blobRequests == 1)
    #expect(environment.server.requests.last?.header("If-None-Match") == "\"\(sha)\"")
  }

  @Test func localModelUsesNoNetworkWhenACopyIsHere() async throws {
    let environment = try await FaultyEnvironment.make()
    defer { Task { await environment.close() } }
    await environment.server.publish("m", data: TestSupport.bytes(100_000, seed: 3))
    let downloader = environment.downloader()
    let installed = try await downloader.getModel(name: "m", downloadType: .localModel)  // none yet: as latestModel
    #expect(environment.server.stats.blobRequests == 1)
    await environment.server.stop()   // offline from now on
    await environment.server.publish("m", data: TestSupport.bytes(100_000, seed: 4))

    let local = try await downloader.getModel(name: "m", downloadType: .localModel)
    // A fresh downloader on the same directory (a new process) finds it too.
    let fromDisk = try await environment.downloader().getModel(name: "m", downloadType: .localModel)

    #expect(local == installed)
    #expect(fromDisk == installed)
    #expect(environment.server.stats.infoRequests == 1)
  }

  @Test func latestModelFailsTypedWhenTheRegistryIsUnreachable() async throws {
    let environment = try await FaultyEnvironment.make()
    defer { Task { await environment.close() } }
    await environment.server.publish("m", data: TestSupport.bytes(10_000, seed: 5))
    let downloader = environment.downloader()
    _ = try await downloader.getModel(name: "m", downloadType: .latestModel)
    await environment.server.stop()

    let error = try await #require(throws: ModelDownloadError.self) {
      try await downloader.getModel(name: "m", downloadType: .latestModel)
    }
    #expect(error.offlineReason == .connectionRefused)
    // The local copy is still there for .localModel.
    #expect(try await downloader.getModel(name: "m", downloadType: .localModel).version == "1")
  }

  @Test func localModelUpdateInBackgroundReturnsTheLocalCopyAndTheNextCallSeesTheUpdate() async throws {
    let environment = try await FaultyEnvironment.make()
    defer { Task { await environment.close() } }
    let server = environment.server
    await server.publish("m", data: TestSupport.bytes(300_000, seed: 6))
    let downloader = environment.downloader()
    let v1 = try await downloader.getModel(name: "m", downloadType: .localModelUpdateInBackground)  // none: blocks
    #expect(v1.version == "1")
    let newData = TestSupport.bytes(2 << 20, seed: 7)
    let (v2Version, v2SHA) = await server.publish("m", data: newData)
    server.configure { $0.chunkDelay = .milliseconds(2) }

    let immediate = try await downloader.getModel(name: "m", downloadType: .localModelUpdateInBackground)

    #expect(immediate == v1)
    // The update lands in the background; until then `.localModel` keeps answering version 1.
    let updated = await TestSupport.eventually {
      (try? await downloader.getModel(name: "m", downloadType: .localModel))?.version == v2Version
    }
    #expect(updated)
    let next = try await downloader.getModel(name: "m", downloadType: .localModelUpdateInBackground)
    #expect(next.version == v2Version)
    #expect(next.hash == v2SHA)
    #expect(try Data(contentsOf: URL(fileURLWithPath: next.path)) == newData)
    #expect(!FileManager.default.fileExists(atPath: v1.path))   // the old file went once v2 was committed
    #expect(server.stats.blobRequests == 2)
  }

  @Test func latestModelBlocksUntilTheNewVersionIsInstalled() async throws {
    let environment = try await FaultyEnvironment.make()
    defer { Task { await environment.close() } }
    await environment.server.publish("m", data: TestSupport.bytes(100_000, seed: 8))
    let downloader = environment.downloader()
    let v1 = try await downloader.getModel(name: "m", downloadType: .latestModel)
    let newData = TestSupport.bytes(1 << 20, seed: 9)
    await environment.server.publish("m", data: newData)

    let v2 = try await downloader.getModel(name: "m", downloadType: .latestModel)

    #expect(v2.version == "2")
    #expect(try Data(contentsOf: URL(fileURLWithPath: v2.path)) == newData)
    #expect(!FileManager.default.fileExists(atPath: v1.path))
    #expect(try await downloader.listDownloadedModels() == [v2])
  }

  @Test func theSameBlobUnderANewVersionIsRelabelledWithoutADownload() async throws {
    let environment = try await FaultyEnvironment.make()
    defer { Task { await environment.close() } }
    await environment.server.publish("m", data: TestSupport.bytes(50_000, seed: 10))
    let downloader = environment.downloader()
    let v1 = try await downloader.getModel(name: "m", downloadType: .latestModel)
    let newVersion = environment.server.republish("m")

    // The sha is unchanged, so the server answers 304 to If-None-Match: the local copy stands.
    let again = try await downloader.getModel(name: "m", downloadType: .latestModel)
    #expect(again == v1)
    #expect(environment.server.stats.blobRequests == 1)
    _ = newVersion
  }

  @Test func anUnknownModelIsModelNotFound() async throws {
    let environment = try await FaultyEnvironment.make()
    defer { Task { await environment.close() } }
    let downloader = environment.downloader()
    for type in ModelDownloadType.allCases {
      await #expect(throws: ModelDownloadError.modelNotFound(name: "nothing")) {
        try await downloader.getModel(name: "nothing", downloadType: type)
      }
    }
  }

  @Test func deleteRemovesEverythingAndASecondDeleteIsNotFound() async throws {
    let environment = try await FaultyEnvironment.make()
    defer { Task { await environment.close() } }
    await environment.server.publish("m", data: TestSupport.bytes(50_000, seed: 11))
    let downloader = environment.downloader()
    let model = try await downloader.getModel(name: "m", downloadType: .latestModel)

    try await downloader.deleteDownloadedModel(name: "m")

    #expect(!FileManager.default.fileExists(atPath: model.path))
    #expect(try await downloader.listDownloadedModels().isEmpty)
    #expect(downloader.modelFile(named: "m").fileState == .notDownloaded)
    await #expect(throws: ModelDownloadError.modelNotFound(name: "m")) {
      try await downloader.deleteDownloadedModel(name: "m")
    }
  }

  @Test func theInstallationIDIsCreatedOnceAndKept() async throws {
    let environment = try await FaultyEnvironment.make()
    defer { Task { await environment.close() } }
    await environment.server.publish("m", data: TestSupport.bytes(1000, seed: 12))
    func downloader() -> ModelDownloader {
      ModelDownloader(server: environment.server.baseURL, directory: environment.modelsDirectory,
                      httpClient: TestSupport.httpClient, networkProbe: FixedNetworkProbe(NetworkPath(interface: "lo")),
                      retryPolicy: TestSupport.fastRetries, logger: TestSupport.logger)
    }
    _ = try await downloader().getModel(name: "m", downloadType: .latestModel)
    _ = try await downloader().getModel(name: "m", downloadType: .latestModel)

    let ids = environment.server.requests.compactMap { $0.header("X-HybridAI-Installation-Id") }
    #expect(ids.count == 2)
    #expect(Set(ids).count == 1)
    #expect(UUID(uuidString: ids[0]) != nil)
    let stored = try String(contentsOf: environment.modelsDirectory.appendingPathComponent("installation-id"), encoding: .utf8)
    #expect(stored.trimmingCharacters(in: .whitespacesAndNewlines) == ids[0])
  }

  @Test func theDefaultDirectoryFollowsXDG() {
    #expect(ModelDownloader.defaultDirectory(environment: ["XDG_CACHE_HOME": "/c", "HOME": "/h"]).path == "/c/hybridai/models")
    #expect(ModelDownloader.defaultDirectory(environment: ["XDG_CACHE_HOME": "relative", "HOME": "/h"]).path
      == "/h/.cache/hybridai/models")
    #expect(ModelDownloader.defaultDirectory(environment: ["HOME": "/h"]).path == "/h/.cache/hybridai/models")
  }
}
