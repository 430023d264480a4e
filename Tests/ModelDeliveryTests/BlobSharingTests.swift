import Foundation
import ModelDelivery
import Testing

/// Installed files are hard links into one content-addressed blob store (`<directory>/.blobs`):
/// bytes two models share are downloaded and stored once, and a blob goes when its last model does.
@Suite struct BlobSharingTests {
  @Test func aSecondModelWithTheSameBytesIsInstalledWithoutDownloading() async throws {
    let environment = try await FaultyEnvironment.make()
    defer { Task { await environment.close() } }
    let data = TestSupport.bytes(400_000, seed: 71)
    let (_, sha) = await environment.server.publish("first", data: data)
    await environment.server.publish("second", data: data)
    let downloader = environment.downloader()

    let first = try await downloader.getModel(name: "first", downloadType: .latestModel)
    let second = try await downloader.getModel(name: "second", downloadType: .latestModel)

    #expect(environment.server.stats.blobRequests == 1)
    #expect(first.hash == sha && second.hash == sha)
    #expect(first.path != second.path)
    #expect(try Data(contentsOf: URL(fileURLWithPath: second.path)) == data)
    #expect(try Self.inode(first.path) == Self.inode(second.path))
    #expect(try Self.blobs(in: environment) == [sha])
    #expect(!FileManager.default.fileExists(atPath: environment.modelsDirectory.appendingPathComponent("second/download.part").path))

    // Deleting one model keeps the other's bytes; deleting the last one removes the blob.
    try await downloader.deleteDownloadedModel(name: "first")
    #expect(try Data(contentsOf: URL(fileURLWithPath: second.path)) == data)
    #expect(try Self.blobs(in: environment) == [sha])
    try await downloader.deleteDownloadedModel(name: "second")
    #expect(try Self.blobs(in: environment).isEmpty)
    #expect(try await downloader.listDownloadedModels().isEmpty)
  }

  @Test func anUpdateRemovesThePreviousVersionsBlob() async throws {
    let environment = try await FaultyEnvironment.make()
    defer { Task { await environment.close() } }
    await environment.server.publish("m", data: TestSupport.bytes(200_000, seed: 72))
    let downloader = environment.downloader()
    let v1 = try await downloader.getModel(name: "m", downloadType: .latestModel)
    let newData = TestSupport.bytes(300_000, seed: 73)
    let (_, newSHA) = await environment.server.publish("m", data: newData)

    let v2 = try await downloader.getModel(name: "m", downloadType: .latestModel)

    #expect(v2.hash == newSHA)
    #expect(!FileManager.default.fileExists(atPath: v1.path))
    #expect(try Data(contentsOf: URL(fileURLWithPath: v2.path)) == newData)
    #expect(try Self.blobs(in: environment) == [newSHA])
    #expect(TestSupport.files(of: "m", in: environment.directory) == [".lock", "model.json", URL(fileURLWithPath: v2.path).lastPathComponent])
  }

  @Test func aFailedAdoptionKeepsTheVerifiedPartAndTheRetryDownloadsNothing() async throws {
    let environment = try await FaultyEnvironment.make()
    defer { Task { await environment.close() } }
    let data = TestSupport.bytes(250_000, seed: 74)
    let (_, sha) = await environment.server.publish("m", data: data)
    // A plain file where the blob's shard directory belongs: the rename into the store fails.
    let shards = environment.modelsDirectory.appendingPathComponent(".blobs/sha256", isDirectory: true)
    try FileManager.default.createDirectory(at: shards, withIntermediateDirectories: true)
    let obstacle = shards.appendingPathComponent(String(sha.prefix(2)))
    try Data("in the way".utf8).write(to: obstacle)
    let downloader = environment.downloader()

    let error = try await #require(throws: ModelDownloadError.self) {
      try await downloader.getModel(name: "m", downloadType: .latestModel)
    }
    guard case .writeFailed(let path, _) = error else {
      Issue.record("expected writeFailed, got \(error)")
      return
    }
    #expect(path.contains(".blobs"))
    let part = environment.modelsDirectory.appendingPathComponent("m/download.part")
    #expect(try Data(contentsOf: part) == data)
    #expect(try await downloader.listDownloadedModels().isEmpty)

    try FileManager.default.removeItem(at: obstacle)
    let sentBefore = environment.server.stats.blobBytesSent
    let model = try await downloader.getModel(name: "m", downloadType: .latestModel)
    #expect(model.hash == sha)
    #expect(environment.server.stats.blobBytesSent == sentBefore)
    #expect(try Data(contentsOf: URL(fileURLWithPath: model.path)) == data)
    #expect(!FileManager.default.fileExists(atPath: part.path))
  }

  /// The digests in the downloader's blob store.
  static func blobs(in environment: FaultyEnvironment) throws -> Set<String> {
    let shards = environment.modelsDirectory.appendingPathComponent(".blobs/sha256", isDirectory: true)
    let fileManager = FileManager.default
    guard fileManager.fileExists(atPath: shards.path) else { return [] }
    return Set(try fileManager.contentsOfDirectory(atPath: shards.path).flatMap { shard in
      try fileManager.contentsOfDirectory(atPath: shards.appendingPathComponent(shard).path)
    })
  }

  static func inode(_ path: String) throws -> UInt64 {
    let attributes = try FileManager.default.attributesOfItem(atPath: path)
    return try #require(attributes[.systemFileNumber] as? UInt64)
  }
}
