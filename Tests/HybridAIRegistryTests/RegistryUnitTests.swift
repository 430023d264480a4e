import Foundation
import HybridAIFileStorage
import HybridAIWire
import NIOCore
import Synchronization
import Testing
@testable import HybridAIRegistry

/// The registry's pure parts: buckets, format sniffing, ranges, names, signatures.
@Suite("Registry rules")
struct RegistryUnitTests {
  @Test("buckets match SHA-256(name + \"\\n\" + id), first 8 bytes big-endian, mod 10,000 (values from Python's hashlib)")
  func buckets() {
    #expect(RolloutBucket.bucket(modelName: "selfie", installationId: "installation-1") == 1540)
    #expect(RolloutBucket.bucket(modelName: "selfie", installationId: "") == 6736)
    #expect(RolloutBucket.bucket(modelName: "m", installationId: String(repeating: "a", count: 128)) == 3320)
    let rollout = ModelRecord.Rollout(splits: [.init(version: 3, basisPoints: 9000), .init(version: 1, basisPoints: 1000)])
    #expect(RolloutBucket.version(forBucket: 0, in: rollout) == 3)
    #expect(RolloutBucket.version(forBucket: 8999, in: rollout) == 3)
    #expect(RolloutBucket.version(forBucket: 9000, in: rollout) == 1)
    #expect(RolloutBucket.version(forBucket: 9999, in: rollout) == 1)
  }

  @Test("an upload the disk cannot take (ENOSPC, EDQUOT) is 507 RESOURCE_EXHAUSTED; other storage failures are 500 without the path")
  func uploadStorageErrors() {
    for code in [ENOSPC, EDQUOT] {
      let error = ModelRegistry.uploadError(for: BlobStoreError(operation: "write", path: "/data/blobs/.part-x", code: code))
      #expect(error.status.code == 507 && error.statusName == "RESOURCE_EXHAUSTED", "\(error)")
      #expect(!error.message.contains("/data"))
    }
    let failed = ModelRegistry.uploadError(for: BlobStoreError(operation: "fsync", path: "/data/blobs/.part-x", code: EIO))
    #expect(failed.status.code == 500 && failed.statusName == "INTERNAL" && !failed.message.contains("/data"))
  }

  @Test("formats are sniffed from the first bytes")
  func formats() {
    #expect(ModelFormat.sniff(Array(RegistryFixtures.tflite)) == .tflite)
    #expect(ModelFormat.sniff(Array(RegistryFixtures.gguf)) == .gguf)
    #expect(ModelFormat.sniff(Array(RegistryFixtures.other)) == .other)
    #expect(ModelFormat.sniff(Array("GGU".utf8)) == .other)
    #expect(ModelFormat.sniff(Array("xxxxTFL".utf8)) == .other)
    #expect(ModelFormat.sniff([UInt8]()) == .other)
  }

  @Test("Range headers")
  func ranges() {
    #expect(ByteRangeRequest(header: nil, size: 10) == .whole)
    #expect(ByteRangeRequest(header: "bytes=0-4", size: 10) == .partial(0...4))
    #expect(ByteRangeRequest(header: " Bytes=2- ", size: 10) == .partial(2...9))
    #expect(ByteRangeRequest(header: "bytes=-3", size: 10) == .partial(7...9))
    #expect(ByteRangeRequest(header: "bytes=-30", size: 10) == .partial(0...9))
    #expect(ByteRangeRequest(header: "bytes=5-50", size: 10) == .partial(5...9))
    #expect(ByteRangeRequest(header: "bytes=10-", size: 10) == .unsatisfiable)
    #expect(ByteRangeRequest(header: "bytes=-0", size: 10) == .unsatisfiable)
    #expect(ByteRangeRequest(header: "bytes=0-", size: 0) == .unsatisfiable)
    #expect(ByteRangeRequest(header: "bytes=4-2", size: 10) == .whole)
    #expect(ByteRangeRequest(header: "bytes=0-1,3-4", size: 10) == .whole)
    #expect(ByteRangeRequest(header: "bytes=-", size: 10) == .whole)
    #expect(ByteRangeRequest(header: "bytes=+1-2", size: 10) == .whole)
    #expect(ByteRangeRequest(header: "lines=0-1", size: 10) == .whole)
  }

  @Test("names, versions, blob ids, installation ids")
  func identifiers() {
    #expect(RegistryIdentifiers.isValidModelName("a"))
    #expect(RegistryIdentifiers.isValidModelName("9_-x"))
    #expect(RegistryIdentifiers.isValidModelName(String(repeating: "z", count: 64)))
    for bad in ["", "_a", "-a", ".", "..", "a.b", "a/b", "a%2Fb", "a\u{0}", "é", String(repeating: "z", count: 65)] {
      #expect(!RegistryIdentifiers.isValidModelName(bad), "\(bad.debugDescription)")
    }
    #expect(RegistryIdentifiers.version(from: "1") == 1)
    #expect(RegistryIdentifiers.version(from: "9999999999") == 9_999_999_999)
    for bad in ["", "0", "01", "+1", "-1", "1e3", "99999999999", "١"] {
      #expect(RegistryIdentifiers.version(from: bad) == nil, "\(bad)")
    }
    #expect(RegistryIdentifiers.isValidSHA256(String(repeating: "0a", count: 32)))
    #expect(!RegistryIdentifiers.isValidSHA256(String(repeating: "0A", count: 32)))
    #expect(RegistryIdentifiers.isValidInstallationId("4C5E0D0E-1F4B-4C2B-9B8E-1A2B3C4D5E6F"))
    #expect(!RegistryIdentifiers.isValidInstallationId("has space"))
  }

  @Test("signatures: HMAC-SHA256 over \"<sha256>\\n<expires>\"; valid until expiry, then expired; any change is invalid")
  func signatures() throws {
    let directory = FileManager.default.temporaryDirectory.appending(path: "hybrid-signer-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let keyPath = directory.appending(path: "signing.key").path
    try Data(repeating: 7, count: 32).write(to: URL(filePath: keyPath))
    let signer = try DownloadURLSigner.loadingOrCreatingKey(at: keyPath, logger: .init(label: "test"))
    let sha = String(repeating: "ab", count: 32)
    let signature = signer.signature(sha256: sha, expires: 1000)
    // From Python: hmac.new(bytes([7] * 32), (sha + "\n1000").encode(), hashlib.sha256).hexdigest()
    #expect(signature == "96d2a7faac966dc1797b98763662114deb7ba52f8d322825d5a72f836be349dc")
    // Each signature starts from a copy of the keyed state: signing others leaves it as it was.
    #expect(signer.signature(sha256: sha, expires: 1001) != signature)
    #expect(signer.signature(sha256: sha, expires: 1000) == signature)
    let concurrent = DispatchQueue.concurrentPerformSignatures(signer, sha256: sha, expires: 1000, count: 64)
    #expect(concurrent == Set([signature]), "signing from many threads at once")
    let attributes = try FileManager.default.attributesOfItem(atPath: keyPath)
    #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600, "a key readable by others is restricted")

    let before = Date(timeIntervalSince1970: 999.9), after = Date(timeIntervalSince1970: 1000)
    #expect(signer.verify(sha256: sha, expires: "1000", signature: signature, now: before) == .valid)
    #expect(signer.verify(sha256: sha, expires: "1000", signature: signature, now: after) == .expired)
    #expect(signer.verify(sha256: sha, expires: "1001", signature: signature, now: before) == .invalid)
    #expect(signer.verify(sha256: String(repeating: "cd", count: 32), expires: "1000", signature: signature, now: before) == .invalid)
    #expect(signer.verify(sha256: sha, expires: "1000", signature: nil, now: before) == .invalid)
    #expect(signer.verify(sha256: sha, expires: nil, signature: signature, now: before) == .invalid)
    #expect(signer.verify(sha256: sha, expires: "-1000", signature: signature, now: before) == .invalid)

    let generatedPath = directory.appending(path: "generated.key").path
    let generated = try DownloadURLSigner.loadingOrCreatingKey(at: generatedPath, logger: .init(label: "test"))
    #expect(generated.verify(sha256: sha, expires: "1000", signature: signature, now: before) == .invalid, "another key")
    let reloaded = try DownloadURLSigner.loadingOrCreatingKey(at: generatedPath, logger: .init(label: "test"))
    #expect(reloaded.signature(sha256: sha, expires: 5) == generated.signature(sha256: sha, expires: 5), "the key is kept")
    #expect(try Data(contentsOf: URL(filePath: generatedPath)).count == 32)
    #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted() == ["generated.key", "signing.key"])

    try Data(repeating: 1, count: 5).write(to: URL(filePath: keyPath))
    #expect(throws: SigningKeyError.self) { try DownloadURLSigner.loadingOrCreatingKey(at: keyPath, logger: .init(label: "test")) }
  }

  @Test("the download info body is the JSON that JSONEncoder.registry writes, escapes included")
  func downloadInfoJSON() throws {
    let awkward = "a\"b\\c/d\n\r\t\u{8}\u{C}\u{0}\u{1F}\u{7F}é😀 e"
    for (uri, name) in [("https://models.example.com/registry/v1/blobs/ab?expires=1&signature=cd", "selfie"),
                        (awkward, awkward), ("", "")] {
      let info = ModelDownloadInfo(name: name, version: "12", sizeBytes: 9_000_000_000, sha256: String(repeating: "ab", count: 32),
                                   format: ModelFormat.gguf.rawValue, downloadUri: uri, expireTime: "2027-01-15T08:00:00Z")
      let expected = String(decoding: try JSONEncoder.registry.encode(info), as: UTF8.self)
      #expect(String(buffer: info.jsonBody) == expected)
      let decoded = try #require(try JSONSerialization.jsonObject(with: Data(buffer: info.jsonBody)) as? [String: Any])
      #expect(decoded["downloadUri"] as? String == uri)
      #expect(decoded["name"] as? String == name)
      #expect(decoded["sizeBytes"] as? Int == 9_000_000_000)
    }
  }

  @Test("timestamps are written as Foundation's ISO 8601 style writes them")
  func timestamps() {
    var seconds: [TimeInterval] = [0, 59, 86_399, 86_400, 951_782_400, 951_868_800, 1_800_000_000, 4_107_542_400,
                                   253_402_300_799, 253_402_300_800, -1, -86_401, 1_800_000_000.5, 1_800_000_000.999]
    var generator = SystemRandomNumberGenerator()
    seconds += (0..<2000).map { _ in TimeInterval(Int64.random(in: 0..<253_402_300_800, using: &generator)) }
    for second in seconds {
      let date = Date(timeIntervalSince1970: second)
      #expect(RegistryTimestamp.string(date) == date.formatted(.iso8601), "\(second)")
    }
    #expect(RegistryTimestamp.string(Date(timeIntervalSince1970: 1_800_000_000)) == "2027-01-15T08:00:00Z")
    #expect(RegistryTimestamp.string(Date(timeIntervalSince1970: 951_782_400)) == "2000-02-29T00:00:00Z")
  }

  @Test("percentages keep two decimals exactly")
  func percents() throws {
    func decode(_ json: String) throws -> Int? {
      try JSONDecoder().decode(RolloutSplit.self, from: Data(#"{"version": "1", "percent": \#(json)}"#.utf8)).basisPoints
    }
    #expect(try decode("90") == 9000)
    #expect(try decode("33.33") == 3333)
    #expect(try decode("0.01") == 1)
    #expect(try decode("12.5") == 1250)
    #expect(try decode("33.333") == nil)
    #expect(try decode("1e300") == nil)
    #expect(RolloutSplit.percentText(basisPoints: 3333) == "33.33")
    #expect(RolloutSplit.percentText(basisPoints: 1250) == "12.5")
    #expect(RolloutSplit.percentText(basisPoints: 5) == "0.05")
    func encoded(_ basisPoints: Int) throws -> String {
      let json = String(decoding: try JSONEncoder().encode(RolloutSplit(version: "1", basisPoints: basisPoints)), as: UTF8.self)
      return String(json.split(separator: "\"percent\":")[1].prefix { $0 != "," && $0 != "}" })
    }
    #expect(try encoded(1000) == "10")
    #expect(try encoded(1) == "0.01")
    #expect(try encoded(3333) == "33.33")
  }
}

extension DispatchQueue {
  /// The distinct signatures `count` threads get for the same blob and expiry at the same time.
  static func concurrentPerformSignatures(_ signer: DownloadURLSigner, sha256: String, expires: Int64,
                                          count: Int) -> Set<String> {
    let results = Mutex(Set<String>())
    concurrentPerform(iterations: count) { _ in
      let signature = signer.signature(sha256: sha256, expires: expires)
      results.withLock { _ = $0.insert(signature) }
    }
    return results.withLock { $0 }
  }
}
