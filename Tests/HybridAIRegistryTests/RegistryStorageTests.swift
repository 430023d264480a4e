import Foundation
import HybridAI
import HybridAITestSupport
import NIOCore
import Testing
@testable import HybridAIRegistry

/// What the registry keeps on disk: the database across restarts, shared blobs, the signing key,
/// uploads that fail half-way, and the OpenAPI document it serves.
@Suite("Registry storage")
struct RegistryStorageTests {
  @Test("models, versions, roll-outs and download URLs survive a restart on the same directory")
  func survivesRestart() async throws {
    let first = try await RegistryTestServer.start()
    defer { try? FileManager.default.removeItem(at: first.dataDirectory) }
    try await first.publishedModel("durable", files: [RegistryFixtures.tflite, RegistryFixtures.gguf])
    try await first.createModel("empty", description: "nothing yet", tags: ["t"])
    #expect(try await RegistryHTTP.admin(.PUT, first.url("/v1/admin/models/durable/rollout"),
                                         json: ["splits": [["version": "1", "percent": 50], ["version": "2", "percent": 50]]]).status == 200)
    let before = try await RegistryHTTP.admin(.GET, first.url("/v1/admin/models")).text
    let uri = try await first.downloadURI("durable")
    await first.stop()

    let second = try await RegistryTestServer.start(dataDirectory: first.dataDirectory, clock: first.clock)
    defer { Task { await second.stop() } }
    let after = try await RegistryHTTP.admin(.GET, second.url("/v1/admin/models")).text
    #expect(after == before)
    let reissued = try #require(URL(string: uri.absoluteString.replacingOccurrences(of: first.base, with: second.base)))
    #expect(try await TestHTTP.send(.GET, reissued).status == 200, "the signing key is the same after a restart")
    #expect(try await second.upload(RegistryFixtures.other, to: "durable")["version"] as? String == "3")

    let keyPath = first.dataDirectory.appending(path: "signing.key").path
    let attributes = try FileManager.default.attributesOfItem(atPath: keyPath)
    #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
    #expect((attributes[.size] as? NSNumber)?.intValue == 32)
    #expect(FileManager.default.fileExists(atPath: first.dataDirectory.appending(path: "registry.sqlite").path))
    await second.stop()
  }

  @Test("models share identical blobs; a blob goes when the last version using it does")
  func sharedBlobs() async throws {
    try await RegistryTestServer.with { server in
      try await server.createModel("first")
      try await server.createModel("second")
      try await server.upload(RegistryFixtures.tflite, to: "first")
      try await server.upload(RegistryFixtures.tflite, to: "first")
      try await server.upload(RegistryFixtures.tflite, to: "second")
      #expect(server.files(in: server.blobsDirectory).count == 1)
      #expect(try await RegistryHTTP.admin(.DELETE, server.url("/v1/admin/models/first/versions/1")).status == 204)
      #expect(try await RegistryHTTP.admin(.DELETE, server.url("/v1/admin/models/first")).status == 204)
      #expect(server.files(in: server.blobsDirectory).count == 1, "second still uses it")
      #expect(try await RegistryHTTP.admin(.DELETE, server.url("/v1/admin/models/second")).status == 204)
      #expect(server.files(in: server.blobsDirectory).isEmpty)
      #expect(server.stagingFiles.isEmpty)
    }
  }

  @Test("GET /v1/openapi.yaml serves the repository's document")
  func openAPIDocument() async throws {
    try await RegistryTestServer.with { server in
      let reply = try await TestHTTP.send(.GET, server.url("/v1/openapi.yaml"))
      #expect(reply.status == 200)
      #expect(reply.header("content-type")?.hasPrefix("application/yaml") == true)
      let repositoryFile = TestRepository.file("Sources/HybridAIRegistry/openapi.yaml")
      #expect(reply.body == (try Data(contentsOf: repositoryFile)))
      #expect(reply.text.hasPrefix("openapi: 3.0"))
    }
  }

  @Test("an upload body longer or shorter than declared is refused and leaves no file")
  func uploadLengthMismatch() async throws {
    let directory = FileManager.default.temporaryDirectory.appending(path: "hybrid-blobstore-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: directory) }
    let blobs = try ModelFiles(dataDirectory: directory, logger: .init(label: "test"))
    func stagingFiles() throws -> [String] {
      try FileManager.default.contentsOfDirectory(atPath: blobs.blobs.directory.path).filter { $0.hasPrefix(FileSystemBlobStore.stagingPrefix) }
    }
    let chunks = [ByteBuffer(bytes: RegistryFixtures.bytes(700)), ByteBuffer(bytes: RegistryFixtures.bytes(700, seed: 1))]

    await #expect(throws: UploadFailure.longerThanDeclared(declaredLength: 1000)) {
      try await blobs.receive(chunks.async, declaredLength: 1000)
    }
    await #expect(throws: UploadFailure.shorterThanDeclared(declaredLength: 2000, received: 1400)) {
      try await blobs.receive(chunks.async, declaredLength: 2000)
    }
    #expect(try stagingFiles().isEmpty)

    let staged = try await blobs.receive(chunks.async, declaredLength: 1400)
    #expect(staged.sizeBytes == 1400)
    #expect(try blobs.store(staged) == true)
    let again = try await blobs.receive(chunks.async, declaredLength: 1400)
    #expect(again.sha256 == staged.sha256)
    #expect(try blobs.store(again) == false, "an existing blob is reused")
    #expect(try stagingFiles().isEmpty)
    #expect(blobs.size(ofBlob: staged.sha256) == 1400)
  }

  @Test("the store keeps its rules: roll-outs name published versions, unpublishing drops them")
  func storeRules() async throws {
    let directory = FileManager.default.temporaryDirectory.appending(path: "hybrid-store-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let store = try SQLiteRegistryStore(path: directory.appending(path: "registry.sqlite").path)
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    try await store.createModel(ModelRecord(name: "m", description: "", tags: ["a"], createTime: now))
    await #expect(throws: RegistryStoreError.modelAlreadyExists("m")) {
      try await store.createModel(ModelRecord(name: "m", description: "", tags: [], createTime: now))
    }
    let sha = String(repeating: "ab", count: 32)
    let one = try await store.addVersion(toModel: "m", sha256: sha, sizeBytes: 10, format: .tflite, createTime: now)
    let two = try await store.addVersion(toModel: "m", sha256: sha, sizeBytes: 10, format: .tflite, createTime: now)
    #expect(one.number == 1)
    #expect(two.number == 2)
    await #expect(throws: RegistryStoreError.versionNotPublished(model: "m", version: 1)) {
      try await store.setRollout(ModelRecord.Rollout(splits: [.init(version: 1, basisPoints: 10_000)]), ofModel: "m")
    }
    _ = try await store.setState(.published, ofVersion: 1, inModel: "m")
    _ = try await store.setState(.published, ofVersion: 2, inModel: "m")
    let rollout = ModelRecord.Rollout(splits: [.init(version: 1, basisPoints: 2500), .init(version: 2, basisPoints: 7500)])
    #expect(try await store.setRollout(rollout, ofModel: "m").rollout == rollout)
    #expect(try await store.setState(.draft, ofVersion: 2, inModel: "m").rollout == nil)
    #expect(try await store.isBlobReferenced(sha256: sha))
    try await store.deleteModel(named: "m")
    #expect(try await store.isBlobReferenced(sha256: sha) == false)
    #expect(try await store.models().isEmpty)
    await #expect(throws: RegistryStoreError.modelNotFound("m")) { try await store.deleteModel(named: "m") }
  }
}
