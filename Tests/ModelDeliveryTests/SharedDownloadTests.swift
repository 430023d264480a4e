import Foundation
import HybridAI
import ModelDelivery
import Synchronization
import Testing

/// Concurrent requests share one download; cancellation stops it; progress and file state report it.
@Suite struct SharedDownloadTests {
  @Test func concurrentGetModelCallsShareOneDownload() async throws {
    let environment = try await FaultyEnvironment.make()
    defer { Task { await environment.close() } }
    let size = 2 << 20
    let (_, sha) = await environment.server.publish("m", data: TestSupport.bytes(size, seed: 41))
    // 128 chunks 4 ms apart: the download lasts ~0.5 s, so all eight calls surely join it.
    environment.server.configure { $0.chunkDelay = .milliseconds(4); $0.chunkSize = 16 << 10 }
    let downloader = environment.downloader()

    let models = try await withThrowingTaskGroup(of: CustomModel.self) { group in
      for index in 0..<8 {
        group.addTask {
          try await downloader.getModel(name: "m", downloadType: index.isMultiple(of: 2) ? .latestModel : .localModel)
        }
      }
      return try await group.reduce(into: []) { $0.append($1) }
    }

    #expect(models.count == 8)
    #expect(Set(models).count == 1)
    #expect(models[0].hash == sha)
    let stats = environment.server.stats
    #expect(stats.infoRequests == 1)
    #expect(stats.blobRequests == 1)
    #expect(await environment.server.wait { $0.blobBytesSent == size })
  }

  @Test func cancellationStopsTheDownloadAndKeepsThePart() async throws {
    let environment = try await FaultyEnvironment.make()
    defer { Task { await environment.close() } }
    let size = 16 << 20
    await environment.server.publish("m", data: TestSupport.bytes(size, seed: 42))
    // 512 chunks 20 ms apart: the whole file takes 10 s, so the cancellation (after the first
    // 1 MiB write) comes long before the end even on a loaded machine.
    environment.server.configure {
      $0.chunkDelay = .milliseconds(20)
      $0.chunkSize = 32 << 10
    }
    let downloader = environment.downloader()
    let progress = downloader.progress(for: "m")
    let task = Task { try await downloader.getModel(name: "m", downloadType: .latestModel) }
    #expect(await TestSupport.eventually { TestSupport.bytesOnDevice("m", downloader) >= 1 << 20 })

    let closedBefore = environment.server.stats.connectionsClosed
    task.cancel()
    await #expect(throws: CancellationError.self) { try await task.value }

    // The server saw the connection go and stopped sending.
    #expect(await environment.server.wait { $0.connectionsClosed > closedBefore })
    let sentAtCancel = environment.server.stats.blobBytesSent
    try await Task.sleep(for: .milliseconds(100))
    #expect(environment.server.stats.blobBytesSent == sentAtCancel)
    #expect(sentAtCancel < size)
    let part = environment.modelsDirectory.appendingPathComponent("m/download.part").path
    #expect(FileManager.default.fileExists(atPath: part))
    #expect(FileManager.default.fileExists(atPath: part + ".json"))
    #expect(downloader.modelFile(named: "m").fileState == .notDownloaded)
    var steps = 0
    for await _ in progress { steps += 1 }   // the stream ended with the cancelled download
    #expect(steps > 0)
  }

  @Test func oneCancelledWaiterDoesNotCancelTheOthersDownload() async throws {
    let environment = try await FaultyEnvironment.make()
    defer { Task { await environment.close() } }
    let size = 2 << 20
    let (_, sha) = await environment.server.publish("m", data: TestSupport.bytes(size, seed: 43))
    // 128 chunks 8 ms apart (~1 s): the download is surely still under way when one waiter leaves.
    environment.server.configure { $0.chunkDelay = .milliseconds(8); $0.chunkSize = 16 << 10 }
    let downloader = environment.downloader()
    let staying = Task { try await downloader.getModel(name: "m", downloadType: .latestModel) }
    let leaving = Task { try await downloader.getModel(name: "m", downloadType: .latestModel) }
    #expect(await environment.server.wait { $0.blobBytesSent > 0 })

    leaving.cancel()
    await #expect(throws: CancellationError.self) { try await leaving.value }
    let model = try await staying.value

    #expect(model.hash == sha)
    #expect(environment.server.stats.blobRequests == 1)
  }

  @Test func progressReportsTheDownloadAndEndsWithIt() async throws {
    let environment = try await FaultyEnvironment.make()
    defer { Task { await environment.close() } }
    let size = 3 << 20
    let (version, _) = await environment.server.publish("m", data: TestSupport.bytes(size, seed: 44))
    environment.server.configure { $0.cutOffsets = [size / 2] }
    let downloader = environment.downloader()
    let stream = downloader.progress(for: "m")
    let collector = Task {
      var steps: [ModelDownloadProgress] = []
      for await step in stream { steps.append(step) }
      return steps
    }

    _ = try await downloader.getModel(name: "m", downloadType: .latestModel)
    let steps = await collector.value   // ends because the download ended

    #expect(steps.count >= 10)
    #expect(steps.first?.bytesReceived == 0)
    #expect(steps.last == ModelDownloadProgress(name: "m", version: version, bytesReceived: Int64(size), totalBytes: Int64(size)))
    #expect(steps.last?.fractionCompleted == 1)
    #expect(zip(steps, steps.dropFirst()).allSatisfy { $0.bytesReceived <= $1.bytesReceived })
    #expect(steps.allSatisfy { $0.totalBytes == Int64(size) && $0.version == version })
  }

  @Test func modelFileReportsItsStateAndPrepareFileFetchesInTheBackground() async throws {
    let environment = try await FaultyEnvironment.make()
    defer { Task { await environment.close() } }
    let size = 2 << 20
    let (_, sha) = await environment.server.publish("weights", data: TestSupport.bytes(size, seed: 45))
    // 128 chunks 8 ms apart (~1 s): long enough to be seen downloading.
    environment.server.configure { $0.chunkDelay = .milliseconds(8); $0.chunkSize = 16 << 10 }
    let downloader = environment.downloader()
    let file: any ModelFileSource = downloader.modelFile(named: "weights")
    #expect(file.name == "weights")
    #expect(file.fileState == .notDownloaded)

    file.prepareFile()
    file.prepareFile()   // already on its way: nothing more

    let sawDownloading = await TestSupport.eventually {
      if case .downloading(let bytes, let total) = file.fileState { return bytes > 0 && total == Int64(size) }
      return false
    }
    #expect(sawDownloading)
    let ready = await TestSupport.eventually {
      if case .ready = file.fileState { return true }
      return false
    }
    #expect(ready)
    guard case .ready(let path, let version) = file.fileState else { return }
    #expect(version == "1")
    #expect(path.hasSuffix("/weights/\(sha).bin"))
    file.prepareFile()   // present: nothing
    #expect(environment.server.stats.infoRequests == 1)
    #expect(environment.server.stats.blobRequests == 1)
  }

  @Test func aFailedBackgroundFetchIsReportedAndPrepareFileRetries() async throws {
    let environment = try await FaultyEnvironment.make()
    defer { Task { await environment.close() } }
    let downloader = environment.downloader()
    let file = downloader.modelFile(named: "later")

    file.prepareFile()
    let failed = await TestSupport.eventually { file.fileState == .failed(reason: ModelDownloadError.modelNotFound(name: "later").description) }
    #expect(failed)

    await environment.server.publish("later", data: Data("weights".utf8))
    file.prepareFile()
    await downloader.waitForBackgroundUpdates()
    guard case .ready = file.fileState else {
      Issue.record("expected ready, got \(file.fileState)")
      return
    }
  }

  @Test func deletingDuringADownloadCancelsItAndItsCallersAreTold() async throws {
    let environment = try await FaultyEnvironment.make()
    defer { Task { await environment.close() } }
    await environment.server.publish("m", data: TestSupport.bytes(4 << 20, seed: 46))
    // The answer stops at 1 MiB and holds its connection open, so the download is surely under way
    // when the delete comes (a slow pace instead let a loaded machine finish it first: seen once).
    environment.server.configure { $0.stallOffset = 1 << 20 }
    let downloader = environment.downloader()
    let task = Task { try await downloader.getModel(name: "m", downloadType: .latestModel) }
    #expect(await environment.server.wait { $0.blobBytesSent > 0 })

    try await downloader.deleteDownloadedModel(name: "m")

    await #expect(throws: ModelDownloadError.deletedDuringDownload(name: "m")) { try await task.value }
    #expect(!FileManager.default.fileExists(atPath: environment.modelsDirectory.appendingPathComponent("m").path))
  }
}
