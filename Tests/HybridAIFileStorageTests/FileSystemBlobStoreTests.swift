import Foundation
@testable import HybridAI
@testable import HybridAIFileStorage
import HybridAITestSupport
import Testing

@Suite("FileSystemBlobStore")
struct FileSystemBlobStoreTests {
  static let bytes = Data("blob bytes".utf8)
  /// SHA-256 of "blob bytes", from Python's hashlib.
  static let digest = BlobDigest(hex: "269d6dd0cedf40e040fbe1b1be1860175a7bb24322549b9064c531f525af3a5b")!

  func staged(_ store: FileSystemBlobStore, _ data: Data = Self.bytes) throws -> URL {
    let file = try store.makeStagingFile()
    try data.write(to: file)
    return file
  }

  @Test("a staged file becomes a read-only blob once; the same bytes again are dropped", arguments: [FileSystemBlobStore.Layout.flat, .sharded])
  func adoptOnce(layout: FileSystemBlobStore.Layout) throws {
    let root = try TemporaryDirectory("blobs")
    defer { root.remove() }
    let store = try FileSystemBlobStore(directory: root.appending("store"), layout: layout)
    let first = try staged(store)
    #expect(try store.adopt(first, digest: Self.digest, size: Int64(Self.bytes.count)) == .stored)
    #expect(!FileManager.default.fileExists(atPath: first.path))
    let url = store.fileURL(of: Self.digest)
    #expect(try Data(contentsOf: url) == Self.bytes)
    #expect(url.lastPathComponent == Self.digest.hex)
    if layout == .sharded { #expect(url.deletingLastPathComponent().lastPathComponent == "26") }
    let permissions = try FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? Int
    #expect(permissions == 0o444)

    let second = try staged(store)
    #expect(try store.adopt(second, digest: Self.digest, size: Int64(Self.bytes.count)) == .alreadyPresent)
    #expect(!FileManager.default.fileExists(atPath: second.path))
    #expect(store.allDigests() == [Self.digest])
    #expect(store.size(of: Self.digest) == Int64(Self.bytes.count))

    try store.remove(Self.digest)
    try store.remove(Self.digest)   // a missing blob is no error
    #expect(store.allDigests().isEmpty && store.size(of: Self.digest) == nil)
  }

  @Test("opening a store removes staging files a crash left — a process that has ended, a day-old file of another host — and keeps those of running processes; unused blobs can be swept")
  func leftovers() throws {
    let root = try TemporaryDirectory("blobs")
    defer { root.remove() }
    let directory = root.appending("store")
    let store = try FileSystemBlobStore(directory: directory)
    let inProgress = try staged(store)   // this process is running: an upload under way
    try store.adopt(try staged(store), digest: Self.digest, size: Int64(Self.bytes.count))
    let other = BlobDigest(hex: String(repeating: "ab", count: 32))!
    try store.adopt(try staged(store, Data("other".utf8)), digest: other, size: 5)
    // This host and process id with another start time: a process that ended, its id reused.
    let me = StagingFileOwner.current
    let ended = directory.appendingPathComponent(".part-\(me.host)-\(me.processID)-\(me.startTime + 1)-x")
    let elsewhere = directory.appendingPathComponent(".part-otherhost-1-5-y")
    let elsewhereOld = directory.appendingPathComponent(".part-otherhost-1-5-z")
    let olderName = directory.appendingPathComponent(".part-0b5c4a1e-old")
    for file in [ended, elsewhere, elsewhereOld, olderName] { try Data("part".utf8).write(to: file) }
    let twoDaysAgo = Date(timeIntervalSinceNow: -2 * 24 * 3600)
    for file in [elsewhereOld, olderName] {
      try FileManager.default.setAttributes([.modificationDate: twoDaysAgo], ofItemAtPath: file.path)
    }

    let reopened = try FileSystemBlobStore(directory: directory)
    #expect(FileManager.default.fileExists(atPath: inProgress.path), "another writer's upload under way stays")
    #expect(FileManager.default.fileExists(atPath: elsewhere.path), "another host's recent part stays")
    for removed in [ended, elsewhereOld, olderName] {
      #expect(!FileManager.default.fileExists(atPath: removed.path), "\(removed.lastPathComponent)")
    }
    #expect(inProgress.lastPathComponent.hasPrefix(".part-\(me.tag)-"))
    #expect(me.isRunning && me.startTime > 0)
    #expect(reopened.removeBlobs(notIn: [Self.digest]) == 1)
    #expect(reopened.allDigests() == [Self.digest])
  }

  @Test("only 64 lowercase hex digits name a blob: path tricks cannot")
  func digestsAreValidated() throws {
    for bad in ["", "../../etc/passwd", String(repeating: "A", count: 64), String(repeating: "a", count: 63),
                String(repeating: "a", count: 63) + "/", String(repeating: "g", count: 64)] {
      #expect(BlobDigest(hex: bad) == nil, "\(bad)")
    }
    let decoded = try JSONDecoder().decode([BlobDigest].self, from: Data(#"["\#(Self.digest.hex)"]"#.utf8))
    #expect(decoded == [Self.digest])
    #expect(throws: DecodingError.self) { try JSONDecoder().decode([BlobDigest].self, from: Data(#"["../x"]"#.utf8)) }
  }

  @Test("a blob that cannot be put in place is a typed error naming the path, and the staging file is gone")
  func adoptFailure() throws {
    let root = try TemporaryDirectory("blobs")
    defer { root.remove() }
    let store = try FileSystemBlobStore(directory: root.appending("store"), layout: .sharded)
    // A plain file where the blob's shard folder should be.
    try Data().write(to: root.appending("store").appendingPathComponent("26"))
    let file = try staged(store)
    let error = #expect(throws: BlobStoreError.self) {
      try store.adopt(file, digest: Self.digest, size: Int64(Self.bytes.count))
    }
    #expect(error?.operation == "rename" && error?.path.hasSuffix("26/\(Self.digest.hex)") == true, "\(String(describing: error))")
    #expect(!FileManager.default.fileExists(atPath: file.path))
  }
}
