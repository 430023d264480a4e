import Foundation
import HybridAI
import HybridAIFileStorage
import Testing

@Suite("File artifact store")
struct FileArtifactStoreTests {
  /// A fresh, empty directory under the temporary directory.
  private func makeDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory
      .appendingPathComponent("artifact-store-tests-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
  }

  /// Every file and directory under `directory`, relative paths, sorted — but for the blobs
  /// folder itself, which every store has (the blobs in it are listed).
  private func listing(_ directory: URL) -> [String] {
    let enumerator = FileManager.default.enumerator(atPath: directory.path)
    var paths: [String] = []
    while let path = enumerator?.nextObject() as? String { paths.append(path) }
    return paths.filter { !$0.hasSuffix("blobs") }.sorted()
  }

  /// The name of the blob `reference`'s file is a link to.
  private func blobName(_ reference: ArtifactReference, in directory: URL) throws -> String {
    let blobs = directory.appendingPathComponent("blobs")
    let file = try FileManager.default.attributesOfItem(atPath: try #require(reference.fileURL).path)[.systemFileNumber] as? NSNumber
    let names = try FileManager.default.contentsOfDirectory(atPath: blobs.path)
    return try #require(names.first { name in
      (try? FileManager.default.attributesOfItem(atPath: blobs.appendingPathComponent(name).path)[.systemFileNumber] as? NSNumber) == file
    })
  }

  private func bytes(_ count: Int, seed: UInt8 = 7) -> Data {
    Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed)) })
  }

  @Test("in-memory bytes are stored and read back, under <id>/<name>")
  func storeData() throws {
    let directory = try makeDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let store = try FileArtifactStore(directory: directory)
    let payload = bytes(12_345)
    let artifact = Artifact(data: payload, mimeType: "audio/wav", name: "speech.wav")
    let reference = try store.store(artifact)
    #expect(reference.id == artifact.id)
    #expect(reference.name == "speech.wav")
    #expect(reference.mimeType == "audio/wav")
    #expect(reference.size == 12_345)
    let url = try #require(reference.fileURL)
    #expect(url.isFileURL)
    #expect(url.lastPathComponent == "speech.wav")
    #expect(url.deletingLastPathComponent().lastPathComponent == artifact.id)
    #expect(try Data(contentsOf: url) == payload)
    #expect(try store.contents(of: artifact.id) == payload)
    #expect(store.reference(id: artifact.id) == reference)
    #expect(store.totalBytes == 12_345)
    #expect(try store.store(artifact) == reference)  // idempotent
    #expect(store.totalBytes == 12_345)
  }

  @Test("a file is copied; the store's copy survives the source's removal")
  func storeFile() throws {
    let directory = try makeDirectory()
    let sourceDirectory = try makeDirectory()
    defer {
      try? FileManager.default.removeItem(at: directory)
      try? FileManager.default.removeItem(at: sourceDirectory)
    }
    let payload = bytes(3 << 20 + 17)  // several copy chunks
    let source = sourceDirectory.appendingPathComponent("mask.png")
    try payload.write(to: source)
    let artifact = Artifact(fileAt: source, mimeType: "image/png", name: "mask.png")
    #expect(artifact.size == Int64(payload.count))
    let store = try FileArtifactStore(directory: directory)
    let reference = try store.store(artifact)
    try FileManager.default.removeItem(at: source)
    #expect(reference.size == Int64(payload.count))
    #expect(try store.contents(of: reference.id) == payload)
  }

  @Test("a file reached through a symbolic link has the file's size and bytes")
  func storeLinkedFile() throws {
    let directory = try makeDirectory(), sourceDirectory = try makeDirectory()
    defer {
      try? FileManager.default.removeItem(at: directory)
      try? FileManager.default.removeItem(at: sourceDirectory)
    }
    let payload = bytes(100_000)
    try payload.write(to: sourceDirectory.appendingPathComponent("photo.jpg"))
    let link = sourceDirectory.appendingPathComponent("latest.jpg")
    try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: "photo.jpg")
    let artifact = Artifact(fileAt: link, mimeType: "image/jpeg", name: "latest.jpg")
    #expect(artifact.size == Int64(payload.count), "the link's own size is \(artifact.size)")
    let reference = try FileArtifactStore(directory: directory).store(artifact)
    #expect(reference.size == Int64(payload.count))
  }

  @Test("a missing source file gives a typed error and leaves nothing")
  func missingSource() throws {
    let directory = try makeDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let store = try FileArtifactStore(directory: directory)
    let artifact = Artifact(fileAt: directory.appendingPathComponent("nope/missing.bin"), mimeType: "application/octet-stream", name: "x.bin")
    #expect {
      try store.store(artifact)
    } throws: { error in
      guard case .unreadableSource = error as? ArtifactStoreError else { return false }
      return true
    }
    #expect(listing(directory).isEmpty)
    #expect(store.allReferences().isEmpty)
  }

  @Test("references and their model descriptions never contain the bytes")
  func referencesHaveNoBytes() throws {
    let directory = try makeDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let store = try FileArtifactStore(directory: directory)
    let marker = "SECRET-PAYLOAD-0123456789"
    let payload = Data(String(repeating: marker, count: 500).utf8)  // 12.5 kB
    let reference = try store.store(Artifact(data: payload, mimeType: "text/plain", name: "notes.txt"))
    let description = reference.modelDescription
    #expect(description == "[artifact \(reference.id) \"notes.txt\" text/plain 12.5 kB]")
    #expect(!description.contains(marker))
    #expect(!description.contains(payload.base64EncodedString().prefix(16)))
    #expect(!description.contains(directory.path))
    let json = try #require(String(data: JSONEncoder().encode(reference), encoding: .utf8))
    #expect(!json.contains(marker))
    #expect(!json.contains(String(payload.base64EncodedString().prefix(16))))
    let decoded = try JSONDecoder().decode(ArtifactReference.self, from: Data(json.utf8))
    #expect(decoded == reference)
  }

  @Test("sizes are described in decimal units")
  func sizeDescriptions() {
    func describe(_ size: Int64) -> String {
      ArtifactReference(id: "a", name: "n", mimeType: "m", size: size).modelDescription
    }
    #expect(describe(0) == "[artifact a \"n\" m 0 B]")
    #expect(describe(999).hasSuffix(" 999 B]"))
    #expect(describe(12_345).hasSuffix(" 12.3 kB]"))
    #expect(describe(999_999).hasSuffix(" 1.0 MB]"))
    #expect(describe(4_000_000_000).hasSuffix(" 4.0 GB]"))
    #expect(describe(.max).hasSuffix(" EB]"))
    #expect(ArtifactReference(id: "a", name: "say \"hi\"", mimeType: "m", size: 1).modelDescription
      == "[artifact a \"say \\\"hi\\\"\" m 1 B]")
  }

  @Test("names are sanitised", arguments: [
    ("../../etc/passwd", "passwd"),
    ("..\\..\\windows\\system.ini", "system.ini"),
    ("pass\u{0}wd.txt", "passwd.txt"),
    ("line\nbreak\t.txt", "linebreak.txt"),
    ("..", "artifact"),
    (".", "artifact"),
    ("", "artifact"),
    ("/", "artifact"),
    ("foo/..", "artifact"),
    ("\u{0}\u{0}", "artifact"),
    (".hidden", "hidden"),
    ("...env", "env"),
    ("dir/sub/", "sub"),
    ("  spaced name.png  ", "spaced name.png"),
    ("résumé ✨.pdf", "résumé ✨.pdf"),
  ])
  func sanitising(raw: String, expected: String) {
    #expect(ArtifactName.sanitized(raw) == expected)
    #expect(Artifact(data: Data(), mimeType: "text/plain", name: raw).name == expected)
  }

  @Test("long names are cut to 128 UTF-8 bytes, keeping the extension")
  func longNames() {
    let long = ArtifactName.sanitized(String(repeating: "a", count: 300) + ".wav")
    #expect(long.utf8.count == 128)
    #expect(long.hasSuffix(".wav"))
    let multibyte = ArtifactName.sanitized(String(repeating: "é", count: 200) + ".png")
    #expect(multibyte.utf8.count <= 128)
    #expect(multibyte.hasSuffix(".png"))
    #expect(multibyte.dropLast(4).allSatisfy { $0 == "é" })
    let noExtension = ArtifactName.sanitized(String(repeating: "😀", count: 100))
    #expect(noExtension.utf8.count <= 128)
    #expect(!noExtension.isEmpty)
    #expect(noExtension.allSatisfy { $0 == "😀" })
  }

  @Test("a sanitised name is stored inside the artifact's folder, never outside")
  func storedNameStaysInside() throws {
    let directory = try makeDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let store = try FileArtifactStore(directory: directory.appendingPathComponent("store"))
    let reference = try store.store(Artifact(data: Data("x".utf8), mimeType: "text/plain", name: "../../etc/passwd"))
    #expect(reference.name == "passwd")
    #expect(reference.fileURL?.path == directory.path + "/store/\(reference.id)/passwd")
    let blob = "store/blobs/" + (try blobName(reference, in: directory.appendingPathComponent("store")))
    #expect(listing(directory) == ["store", "store/\(reference.id)", "store/\(reference.id)/passwd", blob, "store/index.json"].sorted())
  }

  @Test("an artifact over the per-artifact limit is refused and leaves nothing")
  func perArtifactLimit() throws {
    let directory = try makeDirectory()
    let sourceDirectory = try makeDirectory()
    defer {
      try? FileManager.default.removeItem(at: directory)
      try? FileManager.default.removeItem(at: sourceDirectory)
    }
    let store = try FileArtifactStore(directory: directory, limits: .init(maxArtifactBytes: 1000, maxStoreBytes: 10_000))
    #expect(throws: ArtifactStoreError.artifactTooLarge(size: 1001, limit: 1000)) {
      try store.store(Artifact(data: bytes(1001), mimeType: "application/octet-stream", name: "big.bin"))
    }
    #expect(listing(directory).isEmpty)

    // A file that grows after its size was taken: the breach is found while copying.
    let source = sourceDirectory.appendingPathComponent("grows.bin")
    try bytes(10).write(to: source)
    let artifact = Artifact(fileAt: source, mimeType: "application/octet-stream", name: "grows.bin")
    #expect(artifact.size == 10)
    try bytes(5000).write(to: source)
    #expect(throws: ArtifactStoreError.artifactTooLarge(size: 5000, limit: 1000)) {
      try store.store(artifact)
    }
    #expect(listing(directory).isEmpty)
    #expect(store.totalBytes == 0)
    #expect(store.allReferences().isEmpty)

    // The reservation was released: the store still takes artifacts up to its limits.
    try store.store(Artifact(data: bytes(1000), mimeType: "application/octet-stream", name: "ok.bin"))
    #expect(store.totalBytes == 1000)
  }

  @Test("a store over its total limit refuses more and leaves nothing")
  func perStoreLimit() throws {
    let directory = try makeDirectory()
    let sourceDirectory = try makeDirectory()
    defer {
      try? FileManager.default.removeItem(at: directory)
      try? FileManager.default.removeItem(at: sourceDirectory)
    }
    let store = try FileArtifactStore(directory: directory, limits: .init(maxArtifactBytes: 1000, maxStoreBytes: 2500))
    let first = try store.store(Artifact(data: bytes(1000, seed: 1), mimeType: "application/octet-stream", name: "a.bin"))
    let second = try store.store(Artifact(data: bytes(1000, seed: 2), mimeType: "application/octet-stream", name: "b.bin"))
    let before = listing(directory)
    #expect(throws: ArtifactStoreError.storeFull(needed: 1000, available: 500)) {
      try store.store(Artifact(data: bytes(1000, seed: 3), mimeType: "application/octet-stream", name: "c.bin"))
    }
    #expect(listing(directory) == before)

    // A file whose recorded size fits but whose contents do not: found while copying.
    let source = sourceDirectory.appendingPathComponent("grows.bin")
    try bytes(100).write(to: source)
    let artifact = Artifact(fileAt: source, mimeType: "application/octet-stream", name: "grows.bin")
    try bytes(900, seed: 4).write(to: source)
    #expect(throws: ArtifactStoreError.storeFull(needed: 800, available: 400)) {
      try store.store(artifact)
    }
    #expect(listing(directory) == before)
    #expect(store.totalBytes == 2000)
    #expect(store.allReferences() == [first, second])

    try store.remove(id: first.id)
    try store.store(artifact)
    #expect(store.totalBytes == 1900)
  }

  @Test("errors describe themselves")
  func errorDescriptions() {
    #expect(ArtifactStoreError.artifactTooLarge(size: 2, limit: 1).description.contains("too large"))
    #expect(ArtifactStoreError.storeFull(needed: 2, available: 1).description.contains("full"))
    #expect(ArtifactStoreError.unknownArtifact(id: "abc").description.contains("abc"))
  }

  @Test("a store reopened on the same directory sees earlier artifacts")
  func reopen() throws {
    let directory = try makeDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    var references: [ArtifactReference] = []
    do {
      let store = try FileArtifactStore(directory: directory)
      for index in 0..<3 {
        references.append(try store.store(Artifact(data: bytes(100 + index), mimeType: "image/png", name: "image-\(index).png")))
      }
    }
    // A leftover temporary file from a "crash" is cleaned up on open.
    try Data("junk".utf8).write(to: directory.appendingPathComponent(".tmp-crashed"))
    let reopened = try FileArtifactStore(directory: directory)
    #expect(reopened.allReferences() == references)
    #expect(reopened.totalBytes == 100 + 101 + 102)
    #expect(try reopened.contents(of: references[2].id) == bytes(102))
    #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent(".tmp-crashed").path))
  }

  @Test("a corrupt index is reported, not silently dropped")
  func corruptIndex() throws {
    let directory = try makeDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    try Data("{not json".utf8).write(to: directory.appendingPathComponent("index.json"))
    #expect {
      _ = try FileArtifactStore(directory: directory)
    } throws: { error in
      guard case .unreadableSource = error as? ArtifactStoreError else { return false }
      return true
    }
  }

  @Test("removing an artifact deletes its files and its index entry")
  func remove() throws {
    let directory = try makeDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let store = try FileArtifactStore(directory: directory)
    let kept = try store.store(Artifact(data: bytes(10), mimeType: "text/plain", name: "kept.txt"))
    let gone = try store.store(Artifact(data: bytes(20), mimeType: "text/plain", name: "gone.txt"))
    try store.remove(id: gone.id)
    #expect(listing(directory) == ["\(kept.id)", "\(kept.id)/kept.txt", "blobs/\(try blobName(kept, in: directory))", "index.json"].sorted())
    #expect(store.reference(id: gone.id) == nil)
    #expect(store.totalBytes == 10)
    #expect(throws: ArtifactStoreError.unknownArtifact(id: gone.id)) { try store.remove(id: gone.id) }
    #expect(throws: ArtifactStoreError.unknownArtifact(id: gone.id)) { try store.contents(of: gone.id) }
    #expect(try FileArtifactStore(directory: directory).allReferences() == [kept])
  }

  @Test("two tasks storing 50 artifacts each end with 100 consistent entries")
  func concurrentStores() async throws {
    let directory = try makeDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let store = try FileArtifactStore(directory: directory)
    let references = try await withThrowingTaskGroup(of: [ArtifactReference].self) { group in
      for task in 0..<2 {
        group.addTask {
          var made: [ArtifactReference] = []
          for index in 0..<50 {
            let payload = Data("task \(task) artifact \(index)".utf8)
            made.append(try store.store(Artifact(data: payload, mimeType: "text/plain", name: "t\(task)-\(index).txt")))
          }
          return made
        }
      }
      var all: [ArtifactReference] = []
      for try await made in group { all += made }
      return all
    }
    #expect(references.count == 100)
    #expect(Set(references.map(\.id)).count == 100)
    #expect(Set(store.allReferences()) == Set(references))
    #expect(store.totalBytes == references.reduce(0) { $0 + $1.size })
    let reopened = try FileArtifactStore(directory: directory)
    #expect(Set(reopened.allReferences()) == Set(references))
    for reference in references {
      let text = try #require(String(data: try reopened.contents(of: reference.id), encoding: .utf8))
      let parts = reference.name.dropLast(4).dropFirst().split(separator: "-")
      #expect(text == "task \(parts[0]) artifact \(parts[1])")
    }
    #expect(listing(directory).filter { $0.hasPrefix(".tmp-") }.isEmpty)
    #expect(listing(directory).count == 1 + 100 * 3)   // the index; per artifact its folder, its file, its blob
  }

  @Test("artifacts round-trip through JSON; decoding re-sanitises and validates")
  func artifactCodable() throws {
    let artifact = Artifact(data: bytes(5), mimeType: "image/png", name: "x.png")
    let decoded = try JSONDecoder().decode(Artifact.self, from: JSONEncoder().encode(artifact))
    #expect(decoded == artifact)
    let hostile = #"{"id":"../../x","name":"a","mimeType":"m","size":0,"data":""}"#
    #expect(throws: DecodingError.self) { try JSONDecoder().decode(Artifact.self, from: Data(hostile.utf8)) }
    let badName = #"{"id":"abc","name":"../../etc/passwd","mimeType":"m","size":0,"data":""}"#
    #expect(try JSONDecoder().decode(Artifact.self, from: Data(badName.utf8)).name == "passwd")
  }
}
