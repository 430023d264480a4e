import Foundation
@testable import HybridAI
@testable import HybridAIFileStorage
import Testing

/// The store addresses bytes by content: `blobs/<sha256>` once, each artifact a name for them.
@Suite("File artifact store: content addressing")
struct FileArtifactStoreContentTests {
  private func makeDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory
      .appendingPathComponent("artifact-content-tests-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
  }

  private func blobNames(_ directory: URL) -> [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: directory.appendingPathComponent("blobs").path)) ?? []).sorted()
  }

  private func inode(_ url: URL) throws -> UInt64 {
    let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
    return try #require((attributes[.systemFileNumber] as? NSNumber)?.uint64Value)
  }

  @Test("equal bytes are kept once: one blob named by their SHA-256, counted once, removed with the last artifact")
  func equalBytesShareABlob() throws {
    let directory = try makeDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let store = try FileArtifactStore(directory: directory)
    let payload = Data("the same picture".utf8)
    let first = try store.store(Artifact(data: payload, mimeType: "image/png", name: "a.png"))
    let second = try store.store(Artifact(data: payload, mimeType: "image/png", name: "b.png"))
    let other = try store.store(Artifact(data: Data("another".utf8), mimeType: "text/plain", name: "c.txt"))

    let sha256 = SHA256Digest.hex(of: payload)
    #expect(blobNames(directory) == [sha256, SHA256Digest.hex(of: Data("another".utf8))].sorted())
    #expect(store.totalBytes == Int64(payload.count + 7))
    let blob = directory.appendingPathComponent("blobs").appendingPathComponent(sha256)
    #expect(try inode(try #require(first.fileURL)) == inode(blob), "the artifact's file is the blob")
    #expect(try inode(try #require(second.fileURL)) == inode(blob))
    #expect(!FileManager.default.isWritableFile(atPath: blob.path) || getuid() == 0, "blobs are read-only")

    try store.remove(id: first.id)
    #expect(try Data(contentsOf: try #require(second.fileURL)) == payload, "the other artifact keeps the bytes")
    #expect(store.totalBytes == Int64(payload.count + 7))
    try store.remove(id: second.id)
    #expect(blobNames(directory) == [SHA256Digest.hex(of: Data("another".utf8))])
    #expect(store.totalBytes == 7)
    #expect(store.reference(id: other.id) != nil)
  }

  @Test("a copied file is addressed by its content too")
  func filesAreHashedWhileCopied() throws {
    let directory = try makeDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let source = directory.appendingPathComponent("source.bin")
    let payload = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 13) })
    try payload.write(to: source)
    let store = try FileArtifactStore(directory: directory.appendingPathComponent("store"))
    let fromFile = try store.store(Artifact(fileAt: source, mimeType: "application/octet-stream", name: "x.bin"))
    let fromData = try store.store(Artifact(data: payload, mimeType: "application/octet-stream", name: "y.bin"))
    #expect(blobNames(store.directory) == [SHA256Digest.hex(of: payload)])
    #expect(try Data(contentsOf: try #require(fromFile.fileURL)) == payload)
    #expect(try Data(contentsOf: try #require(fromData.fileURL)) == payload)
  }

  @Test("a version 1 store (files without blobs) is adopted when opened; its index becomes version 2")
  func versionOneIsMigrated() throws {
    let directory = try makeDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let id = "0b6f1c2e-5d4a-4c3b-9a8e-7f6d5c4b3a21"
    let payload = Data("old speech".utf8)
    try FileManager.default.createDirectory(at: directory.appendingPathComponent(id), withIntermediateDirectories: true)
    try payload.write(to: directory.appendingPathComponent(id).appendingPathComponent("speech.wav"))
    let index = """
      {"artifacts":[{"id":"\(id)","mimeType":"audio/wav","name":"speech.wav","sequence":0,"size":\(payload.count),\
      "storedAt":"2026-11-01T10:00:00Z"}],"version":1}
      """
    try Data(index.utf8).write(to: directory.appendingPathComponent("index.json"))

    let store = try FileArtifactStore(directory: directory)
    let reference = try #require(store.reference(id: id))
    #expect(try store.contents(of: id) == payload)
    #expect(reference.fileURL?.lastPathComponent == "speech.wav")
    #expect(blobNames(directory) == [SHA256Digest.hex(of: payload)])
    let saved = String(decoding: try Data(contentsOf: directory.appendingPathComponent("index.json")), as: UTF8.self)
    #expect(saved.contains("\"version\":2") && saved.contains(SHA256Digest.hex(of: payload)))
    // Reopening again changes nothing.
    let reopened = try FileArtifactStore(directory: directory)
    #expect(reopened.allReferences() == store.allReferences())
  }

  @Test("a blob no artifact uses (a crash before the index was written) is removed when the store opens")
  func unusedBlobsAreRemoved() throws {
    let directory = try makeDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let kept = try FileArtifactStore(directory: directory).store(Artifact(data: Data("kept".utf8), mimeType: "text/plain", name: "k.txt"))
    let orphan = directory.appendingPathComponent("blobs").appendingPathComponent(SHA256Digest.hex(of: Data("orphan".utf8)))
    try Data("orphan".utf8).write(to: orphan)
    let store = try FileArtifactStore(directory: directory)
    #expect(!FileManager.default.fileExists(atPath: orphan.path))
    #expect(try store.contents(of: kept.id) == Data("kept".utf8))
    #expect(store.totalBytes == 4)
  }
}
