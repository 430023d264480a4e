import Foundation
import HybridAI
import HybridAITestSupport
import ModelDelivery
import Testing

/// Downloads against a server that cuts connections, ignores ranges, corrupts bytes and hands out
/// expired URLs.
@Suite struct FaultTests {
  static let mebibyte = 1 << 20

  /// `count` distinct offsets in `1..<size`, sorted, from `seed`.
  static func cutOffsets(_ count: Int, size: Int, seed: UInt64) -> [Int] {
    var random = SeededRandom(seed: seed)
    var offsets = Set<Int>()
    while offsets.count < count { offsets.insert(Int.random(in: 1..<size, using: &random)) }
    return offsets.sorted()
  }

  @Test(arguments: [UInt64(20_251_122), 7, 99])
  func twentyCutsInOneDownloadResumeEachTimeAndTheFileVerifies(seed: UInt64) async throws {
    let environment = try await FaultyEnvironment.make()
    defer { Task { await environment.close() } }
    let size = 4 * Self.mebibyte + 12_345
    let data = TestSupport.bytes(size, seed: seed)
    let (_, sha) = await environment.server.publish("big", data: data)
    environment.server.configure { $0.cutOffsets = Self.cutOffsets(20, size: size, seed: seed) }
    let downloader = environment.downloader()

    let model = try await downloader.getModel(name: "big", downloadType: .latestModel)

    let stats = environment.server.stats
    #expect(stats.cuts == 20)
    #expect(stats.blobRequests == 21)
    #expect(model.hash == sha)
    let installedSHA = await TestSHA256.hex(try Data(contentsOf: URL(fileURLWithPath: model.path)))
    #expect(installedSHA == sha)
    // Every resumed request asked for the rest, tied to the blob.
    let resumed = environment.server.blobRequestList.dropFirst()
    #expect(resumed.allSatisfy { $0.header("Range")?.hasPrefix("bytes=") == true && $0.header("If-Range") == "\"\(sha)\"" })
    #expect(resumed.allSatisfy { $0.header("Accept-Encoding") == "identity" })
    #expect(stats.blobBytesSent <= size + stats.cuts * Self.mebibyte)
    #expect(TestSupport.files(of: "big", in: environment.directory) == ["model.json", "\(sha).bin", ".lock"])
  }

  @Test func aServerThatIgnoresRangeMakesTheDownloadStartOver() async throws {
    let environment = try await FaultyEnvironment.make()
    defer { Task { await environment.close() } }
    let size = 2 * Self.mebibyte
    let data = TestSupport.bytes(size, seed: 21)
    let (_, sha) = await environment.server.publish("m", data: data)
    environment.server.configure {
      $0.ignoreRange = true
      $0.cutOffsets = [size / 4, size / 2, size * 3 / 4]
    }

    let model = try await environment.downloader().getModel(name: "m", downloadType: .latestModel)

    #expect(model.hash == sha)
    #expect(try Data(contentsOf: URL(fileURLWithPath: model.path)) == data)
    let stats = environment.server.stats
    #expect(stats.blobRequests == 4)
    #expect(stats.rangedBlobRequests == 0)   // it answered them all with 200
    #expect(environment.server.blobRequestList.dropFirst().allSatisfy { $0.header("Range") != nil })
    #expect(stats.blobBytesSent <= size + stats.cuts * size)
  }

  @Test func rangeNotSatisfiableMakesTheDownloadStartOver() async throws {
    let environment = try await FaultyEnvironment.make()
    defer { Task { await environment.close() } }
    let size = Self.mebibyte
    let data = TestSupport.bytes(size, seed: 22)
    let (_, sha) = await environment.server.publish("m", data: data)
    environment.server.configure {
      $0.cutOffsets = [size / 2]
      $0.rangeNotSatisfiable = 1
    }

    let model = try await environment.downloader().getModel(name: "m", downloadType: .latestModel)

    #expect(model.hash == sha)
    let blobs = environment.server.blobRequestList
    #expect(blobs.count == 3)   // cut at half; 416 for the rest; the whole file again
    #expect(blobs[1].header("Range") != nil)
    #expect(blobs[2].header("Range") == nil)
  }

  @Test func aCorruptByteFailsWithHashMismatchAndKeepsThePreviousVersion() async throws {
    let environment = try await FaultyEnvironment.make()
    defer { Task { await environment.close() } }
    let oldData = TestSupport.bytes(300_000, seed: 23)
    await environment.server.publish("m", data: oldData)
    let downloader = environment.downloader()
    let v1 = try await downloader.getModel(name: "m", downloadType: .latestModel)
    let newData = TestSupport.bytes(2 * Self.mebibyte, seed: 24)
    let (_, newSHA) = await environment.server.publish("m", data: newData)
    environment.server.configure {
      $0.corruptOffset = 1_000_000
      $0.cutOffsets = [500_000, 1_500_000]   // corruption survives resumption
    }

    let error = try await #require(throws: ModelDownloadError.self) {
      try await downloader.getModel(name: "m", downloadType: .latestModel)
    }

    guard case .hashMismatch(let expected, let actual) = error else {
      Issue.record("expected hashMismatch, got \(error)")
      return
    }
    #expect(expected == newSHA)
    var corrupted = newData
    corrupted[1_000_000] ^= 0xFF
    #expect(actual == (await TestSHA256.hex(corrupted)))
    // The old version is untouched and still the installed one; no part claims anything.
    #expect(try Data(contentsOf: URL(fileURLWithPath: v1.path)) == oldData)
    #expect(try await downloader.getModel(name: "m", downloadType: .localModel) == v1)
    #expect(TestSupport.files(of: "m", in: environment.directory) == ["model.json", "\(v1.hash).bin", ".lock"])
    #expect(downloader.modelFile(named: "m").fileState == .ready(path: v1.path, version: "1"))

    // The next attempt, with an honest server, succeeds from scratch.
    environment.server.configure { $0.corruptOffset = nil }
    let v2 = try await downloader.getModel(name: "m", downloadType: .latestModel)
    #expect(v2.hash == newSHA)
    #expect(environment.server.blobRequestList.last?.header("Range") == nil)
  }

  @Test func anExpiredDownloadURLIsFetchedAgainOnce() async throws {
    let environment = try await FaultyEnvironment.make()
    defer { Task { await environment.close() } }
    let (_, sha) = await environment.server.publish("m", data: TestSupport.bytes(200_000, seed: 25))
    environment.server.configure { $0.expiredURLs = 1 }

    let model = try await environment.downloader().getModel(name: "m", downloadType: .latestModel)

    #expect(model.hash == sha)
    let stats = environment.server.stats
    #expect(stats.infoRequests == 2)
    #expect(stats.rejectedBlobRequests == 1)
    #expect(stats.blobRequests == 2)
  }

  @Test func aDownloadURLRejectedTwiceFailsTyped() async throws {
    let environment = try await FaultyEnvironment.make()
    defer { Task { await environment.close() } }
    await environment.server.publish("m", data: TestSupport.bytes(200_000, seed: 26))
    environment.server.configure { $0.expiredURLs = 10 }

    let error = try await #require(throws: ModelDownloadError.self) {
      try await environment.downloader().getModel(name: "m", downloadType: .latestModel)
    }

    guard case .downloadURLRejected(let status, let message) = error else {
      Issue.record("expected downloadURLRejected, got \(error)")
      return
    }
    #expect(status == 403)
    #expect(message.contains("expired"))
    #expect(environment.server.stats.infoRequests == 2)
  }

  @Test func attemptsWithoutProgressAreLimitedAndThePartIsKept() async throws {
    let environment = try await FaultyEnvironment.make()
    defer { Task { await environment.close() } }
    let size = Self.mebibyte
    let data = TestSupport.bytes(size, seed: 27)
    let (_, sha) = await environment.server.publish("m", data: data)
    // The first request gets (at most) 100,000 bytes; then every connection is dropped before an answer.
    environment.server.configure {
      $0.cutOffsets = [100_000]
      $0.dropBlobRequestsAfter = 1
    }
    let downloader = environment.downloader()

    let error = try await #require(throws: ModelDownloadError.self) {
      try await downloader.getModel(name: "m", downloadType: .latestModel)
    }

    guard case .tooManyInterruptions(let attempts, _) = error else {
      Issue.record("expected tooManyInterruptions, got \(error)")
      return
    }
    #expect(attempts == TestSupport.fastRetries.maxAttemptsWithoutProgress)
    let part = environment.modelsDirectory.appendingPathComponent("m/download.part")
    let partSize = try #require(try FileManager.default.attributesOfItem(atPath: part.path)[.size] as? Int)
    #expect(partSize > 0 && partSize <= 100_000)
    #expect(downloader.modelFile(named: "m").fileState == .failed(reason: error.description))

    // Later, with a working server, it resumes from the part.
    environment.server.configure { $0.dropBlobRequestsAfter = nil }
    let model = try await downloader.getModel(name: "m", downloadType: .latestModel)
    #expect(model.hash == sha)
    #expect(environment.server.blobRequestList.last?.header("Range") == "bytes=\(partSize)-")
  }

  @Test func transientInformationErrorsAreRetried() async throws {
    let environment = try await FaultyEnvironment.make()
    defer { Task { await environment.close() } }
    await environment.server.publish("m", data: TestSupport.bytes(10_000, seed: 28))
    environment.server.configure { $0.infoFailures = [503, 500] }

    let model = try await environment.downloader().getModel(name: "m", downloadType: .latestModel)

    #expect(model.version == "1")
    #expect(environment.server.stats.infoRequests == 3)
  }

  @Test func persistentServerErrorsFailTyped() async throws {
    let environment = try await FaultyEnvironment.make()
    defer { Task { await environment.close() } }
    await environment.server.publish("m", data: TestSupport.bytes(10_000, seed: 29))
    environment.server.configure { $0.infoFailures = Array(repeating: 503, count: 10) }

    await #expect(throws: ModelDownloadError.serverError(status: 503, message: "injected failure")) {
      try await environment.downloader().getModel(name: "m", downloadType: .latestModel)
    }
    #expect(environment.server.stats.infoRequests == TestSupport.fastRetries.maxAttemptsWithoutProgress)
  }

  @Test func aWrongAnnouncedSizeIsASizeMismatch() async throws {
    let environment = try await FaultyEnvironment.make()
    defer { Task { await environment.close() } }
    await environment.server.publish("m", data: TestSupport.bytes(10_000, seed: 30))
    environment.server.configure { $0.announcedSize = 9_000 }

    await #expect(throws: ModelDownloadError.sizeMismatch(expected: 9_000, actual: 10_000)) {
      try await environment.downloader().getModel(name: "m", downloadType: .latestModel)
    }
    #expect(!TestSupport.files(of: "m", in: environment.directory).contains("download.part"))
  }

  @Test func aPartSurvivesANewDownloaderAndAPartOfAnotherBlobIsDiscarded() async throws {
    let environment = try await FaultyEnvironment.make()
    defer { Task { await environment.close() } }
    let size = 3 * Self.mebibyte
    let data = TestSupport.bytes(size, seed: 31)
    let (_, sha) = await environment.server.publish("m", data: data)
    environment.server.configure { $0.stallOffset = size / 3 }
    let first = environment.downloader()
    let task = Task { try await first.getModel(name: "m", downloadType: .latestModel) }
    #expect(await TestSupport.eventually { TestSupport.bytesOnDevice("m", first) >= Int64(size / 3) })
    task.cancel()
    await #expect(throws: CancellationError.self) { try await task.value }
    #expect(await TestSupport.waitUntilUnlocked(environment.modelsDirectory.appendingPathComponent("m")))
    let part = environment.modelsDirectory.appendingPathComponent("m/download.part").path
    let partSize = try #require(try FileManager.default.attributesOfItem(atPath: part)[.size] as? Int)
    #expect(partSize == size / 3)

    // "Another process": a new downloader on the same directory resumes from the part.
    environment.server.configure { $0.stallOffset = nil }
    let sentBefore = environment.server.stats.blobBytesSent
    let model = try await environment.downloader().getModel(name: "m", downloadType: .latestModel)
    #expect(model.hash == sha)
    #expect(environment.server.blobRequestList.last?.header("Range") == "bytes=\(partSize)-")
    #expect(await environment.server.wait { $0.blobBytesSent - sentBefore == size - partSize })

    // A part left for another blob (its sidecar names another sha) is discarded: no Range.
    let (_, otherSHA) = await environment.server.publish("m", data: TestSupport.bytes(500_000, seed: 32))
    try Data(repeating: 7, count: 1000).write(to: URL(fileURLWithPath: part))
    try Data(#"{"sha256": "\#(String(repeating: "0", count: 64))", "sizeBytes": 500000, "version": "9"}"#.utf8)
      .write(to: URL(fileURLWithPath: part + ".json"))
    let other = try await environment.downloader().getModel(name: "m", downloadType: .latestModel)
    #expect(other.hash == otherSHA)
    #expect(environment.server.blobRequestList.last?.header("Range") == nil)
  }

  @Test("a connection that goes quiet mid-download (a network gone without a word) is given up after the read timeout, and the download resumes from where it stopped")
  func aStalledDownloadResumesAfterTheReadTimeout() async throws {
    let environment = try await FaultyEnvironment.make()
    defer { Task { await environment.close() } }
    // Short, but not so short that a busy machine's slow answers count as silence: 3 s was
    // missed by the metadata request on a machine running the whole suite.
    try await TestSupport.withHTTPClient(readTimeout: .seconds(10)) { client in
      let size = 2 * Self.mebibyte
      let (_, sha) = await environment.server.publish("m", data: TestSupport.bytes(size, seed: 41))
      environment.server.configure { $0.stallOnceOffset = size / 2 }
      let model = try await environment.downloader(httpClient: client).getModel(name: "m", downloadType: .latestModel)
      #expect(model.hash == sha)
      // One answer went quiet at the middle; the rest came by ranges from there (more than one if a
      // loaded machine kept a later answer silent for the read timeout too), never from byte 0 again.
      let ranges = environment.server.blobRequestList.map { $0.header("Range") }
      #expect(ranges.count >= 2 && ranges[0] == nil && ranges[1] == "bytes=\(size / 2)-" && !ranges.dropFirst().contains(nil),
              "\(ranges)")
    }
  }

  @Test("a registry that takes the request and never answers is offline (noResponse) after the read timeout, not a hang")
  func aRegistryThatNeverAnswersIsOffline() async throws {
    let environment = try await FaultyEnvironment.make()
    defer { Task { await environment.close() } }
    try await TestSupport.withHTTPClient(readTimeout: .seconds(1)) { client in
      _ = await environment.server.publish("m", data: TestSupport.bytes(1000, seed: 42))
      environment.server.configure { $0.silentInfoRequests = 1 }
      let error = await #expect(throws: ModelDownloadError.self) {
        try await environment.downloader(httpClient: client).getModel(name: "m", downloadType: .latestModel)
      }
      #expect(error?.offlineReason == .noResponse, "\(String(describing: error))")
      // At most the one request: on a loaded machine the server may not have read it yet when the
      // client's second ran out.
      #expect(environment.server.stats.infoRequests <= 1, "an offline registry is not asked again at once")
    }
  }
}
