import Foundation
import HybridAI
import HybridAIFileStorage
@testable import HybridAIRegistry
import HybridAIServerTestSupport
import HybridAITestSupport
import NIOCore
import Testing

/// What the registry keeps on disk: the database across restarts, shared blobs, the signing key,
/// uploads that fail half-way, and the OpenAPI document it serves.
@Suite("Registry storage")
struct RegistryStorageTests {
  @Test("models, versions, roll-outs and download URLs survive a restart on the same directory")
  func survivesRestart() async throws {
    let first = try await RunningRegistry.start()
    defer { try? FileManager.default.removeItem(at: first.dataDirectory) }
    try await first.publishedModel("durable", files: [RegistryFixtures.tflite, RegistryFixtures.gguf])
    try await first.createModel("empty", description: "nothing yet", tags: ["t"])
    #expect(try await RegistryHTTP.admin(.PUT, first.url("/v1/admin/models/durable/rollout"),
                                         json: ["splits": [["version": "1", "percent": 50], ["version": "2", "percent": 50]]]).status == 200)
    let before = try await RegistryHTTP.admin(.GET, first.url("/v1/admin/models")).text
    let uri = try await first.downloadURI("durable")
    await first.stop()

    let second = try await RunningRegistry.start(dataDirectory: first.dataDirectory, clock: first.clock)
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

  @Test("models share identical blobs; a blob goes when the last version using it does", arguments: ServerTransport.allCases)
  func sharedBlobs(over transport: ServerTransport) async throws {
    try await RunningRegistry.with(transport: transport) { server in
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

  @Test("a blob no version records (its upload's store went away) is swept once older than the sweep's age; recorded ones stay")
  func strayBlobs() async throws {
    let directory = FileManager.default.temporaryDirectory.appending(path: "hybrid-registry-stray-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: directory) }
    let registry = try ModelRegistry(configuration: RegistryConfiguration(dataDirectory: directory, adminToken: "t"))
    _ = try await registry.createModel(named: "kept", description: "", tags: [])
    let body = AsyncStream<ByteBuffer> { continuation in
      continuation.yield(ByteBuffer(bytes: RegistryFixtures.tflite))
      continuation.finish()
    }
    _ = try await registry.addVersion(toModel: "kept", body: body, declaredLength: Int64(RegistryFixtures.tflite.count))
    // Stored, never recorded: what an upload leaves when recording its version fails.
    let files = registry.blobs.blobs
    let staging = try files.makeStagingFile()
    try RegistryFixtures.other.write(to: staging)
    let stray = try #require(BlobDigest(hex: RegistryFixtures.otherSHA256))
    let kept = try #require(BlobDigest(hex: RegistryFixtures.tfliteSHA256))
    try files.adopt(staging, digest: stray, size: Int64(RegistryFixtures.other.count))

    #expect(try await registry.removeStrayBlobs() == 0, "a blob adopted a moment ago may be an upload being recorded")
    let twoHoursAgo = Date(timeIntervalSinceNow: -7200)
    for digest in [stray, kept] {
      try FileManager.default.setAttributes([.modificationDate: twoHoursAgo], ofItemAtPath: files.fileURL(of: digest).path)
    }
    #expect(try await registry.removeStrayBlobs() == 1)
    #expect(files.size(of: stray) == nil && files.size(of: kept) == Int64(RegistryFixtures.tflite.count))

    // The same bytes adopted again count as new: an upload of them may be recording its version.
    let again = try files.makeStagingFile()
    try RegistryFixtures.tflite.write(to: again)
    try FileManager.default.setAttributes([.modificationDate: twoHoursAgo], ofItemAtPath: files.fileURL(of: kept).path)
    #expect(try files.adopt(again, digest: kept, size: Int64(RegistryFixtures.tflite.count)) == .alreadyPresent)
    #expect(try #require(files.lastAdoption(of: kept)).timeIntervalSinceNow > -60)
  }

  @Test("GET /v1/openapi.yaml serves the repository's document", arguments: ServerTransport.allCases)
  func openAPIDocument(over transport: ServerTransport) async throws {
    try await RunningRegistry.with(transport: transport) { server in
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

  @Test("the store keeps its rules: roll-outs name published versions, unpublishing drops them", arguments: StoreKind.allCases)
  func storeRules(_ kind: StoreKind) async throws {
    try await RegistryStores.with(kind) { store in try await Self.checkStoreRules(store) }
  }

  /// The rules every ``RegistryStore`` keeps, on an empty store.
  static func checkStoreRules(_ store: any RegistryStore) async throws {
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

    // Records come back as they went in; numbers are never reused; deleting a named version drops the roll-out.
    let created = Date(timeIntervalSince1970: 1_800_000_123)
    try await store.createModel(ModelRecord(name: "zeta", description: "last by name", tags: [], createTime: created))
    try await store.createModel(ModelRecord(name: "alpha", description: "ünïcode ✓", tags: ["x", "y z"], createTime: created))
    #expect(try await store.models().map(\.name) == ["alpha", "zeta"])
    let shaA = String(repeating: "0a", count: 32), shaB = String(repeating: "0b", count: 32)
    let first = try await store.addVersion(toModel: "alpha", sha256: shaA, sizeBytes: 1 << 40, format: .gguf, createTime: created)
    _ = try await store.addVersion(toModel: "alpha", sha256: shaB, sizeBytes: 0, format: .other, createTime: now)
    try await store.deleteVersion(2, ofModel: "alpha")
    let third = try await store.addVersion(toModel: "alpha", sha256: shaB, sizeBytes: 7, format: .tflite, createTime: now)
    #expect(third.number == 3, "version numbers are never reused")
    _ = try await store.setState(.published, ofVersion: 1, inModel: "alpha")
    _ = try await store.setState(.published, ofVersion: 3, inModel: "alpha")
    let split = ModelRecord.Rollout(splits: [.init(version: 3, basisPoints: 9000), .init(version: 1, basisPoints: 1000)])
    _ = try await store.setRollout(split, ofModel: "alpha")
    let alpha = try #require(try await store.model(named: "alpha"))
    #expect(alpha == ModelRecord(
      name: "alpha", description: "ünïcode ✓", tags: ["x", "y z"], createTime: created,
      versions: [
        ModelRecord.Version(number: 1, sha256: shaA, sizeBytes: 1 << 40, format: .gguf, state: .published, createTime: created),
        ModelRecord.Version(number: 3, sha256: shaB, sizeBytes: 7, format: .tflite, state: .published, createTime: now),
      ],
      rollout: split))
    #expect(first.number == 1 && first.state == .draft)
    #expect(try await store.models() == [alpha, try #require(try await store.model(named: "zeta"))])
    #expect(try await store.setRollout(nil, ofModel: "alpha").rollout == nil)
    _ = try await store.setRollout(split, ofModel: "alpha")
    try await store.deleteVersion(1, ofModel: "alpha")
    #expect(try await store.model(named: "alpha")?.rollout == nil, "deleting a version the roll-out names drops it")
    #expect(try await store.model(named: "missing") == nil)

    // Refusals name what is missing.
    await #expect(throws: RegistryStoreError.modelNotFound("missing")) {
      try await store.addVersion(toModel: "missing", sha256: shaA, sizeBytes: 1, format: .other, createTime: now)
    }
    await #expect(throws: RegistryStoreError.modelNotFound("missing")) {
      try await store.setState(.published, ofVersion: 1, inModel: "missing")
    }
    await #expect(throws: RegistryStoreError.versionNotFound(model: "alpha", version: 9)) {
      try await store.setState(.published, ofVersion: 9, inModel: "alpha")
    }
    await #expect(throws: RegistryStoreError.versionNotFound(model: "alpha", version: 9)) {
      try await store.deleteVersion(9, ofModel: "alpha")
    }
    await #expect(throws: RegistryStoreError.versionNotFound(model: "alpha", version: 9)) {
      try await store.setRollout(ModelRecord.Rollout(splits: [.init(version: 9, basisPoints: 10_000)]), ofModel: "alpha")
    }
    await #expect(throws: RegistryStoreError.modelNotFound("missing")) { try await store.setRollout(nil, ofModel: "missing") }
    await #expect(throws: RegistryStoreError.modelNotFound("missing")) { try await store.deleteVersion(1, ofModel: "missing") }
    try await store.deleteModel(named: "alpha")
    #expect(try await store.models().map(\.name) == ["zeta"])
  }
}
