import Foundation
import HybridAIProcess
import HybridAITestSupport
import Testing

@testable import HybridAI
@testable import HybridAIFileStorage

/// SHA256Digest against the FIPS 180-4 / NIST example vectors and against coreutils' `sha256sum`.
///
/// The tests that run `sha256sum` are synchronous on purpose: waiting for a child process
/// must not block a thread of the Swift concurrency pool.
@Suite("SHA256Digest")
struct SHA256Tests {
  // MARK: - Known vectors

  @Test("NIST example vectors", arguments: [
    ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
    ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
    (
      "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
      "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
    ),
    (
      "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
      "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"
    ),
  ])
  func nistVector(message: String, expected: String) {
    #expect(SHA256Digest.hex(of: Data(message.utf8)) == expected)
  }

  @Test("one million \"a\"")
  func millionA() {
    let expected = "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"
    #expect(SHA256Digest.hex(of: Data(repeating: 0x61, count: 1_000_000)) == expected)
    // The same, fed in 1000-byte pieces.
    var digest = SHA256Digest()
    let piece = Data(repeating: 0x61, count: 1000)
    for _ in 0..<1000 { digest.update(piece) }
    #expect(digest.finalizeHex() == expected)
  }

  @Test("finalize returns the 32 bytes that finalizeHex spells")
  func bytesMatchHex() {
    var bytesDigest = SHA256Digest()
    var hexDigest = SHA256Digest()
    bytesDigest.update(Data("abc".utf8))
    hexDigest.update(Data("abc".utf8))
    let bytes = bytesDigest.finalize()
    #expect(bytes.count == 32)
    #expect(bytes.map { String(format: "%02x", $0) }.joined() == hexDigest.finalizeHex())
  }

  @Test("raw-buffer and Data updates agree, empty updates change nothing")
  func rawBufferUpdate() {
    let data = Self.pseudoRandomBytes(count: 777, seed: 5)
    var digest = SHA256Digest()
    digest.update(UnsafeRawBufferPointer(start: nil, count: 0))
    data.withUnsafeBytes { digest.update($0) }
    digest.update(Data())
    #expect(digest.finalizeHex() == SHA256Digest.hex(of: data))
  }

  // MARK: - Against sha256sum

  @Test("lengths 0…200 and some large ones match sha256sum")
  func matchesSha256sum() async throws {
    var samples: [Data] = (0...200).map { Self.pseudoRandomBytes(count: $0, seed: UInt64($0) &+ 1) }
    for (index, count) in [255, 256, 4095, 4096, 65_537, (1 << 20) + 3].enumerated() {
      samples.append(Self.pseudoRandomBytes(count: count, seed: 1000 + UInt64(index)))
    }
    let expected = try await Self.sha256sum(samples)
    for (sample, reference) in zip(samples, expected) {
      #expect(SHA256Digest.hex(of: sample) == reference, "length \(sample.count)")
    }
  }

  // MARK: - Chunked updates

  @Test("awkward chunk sizes give the same digest as one update", arguments: [1, 63, 64, 65, 127, 128, 1000])
  func fixedChunks(size: Int) {
    let data = Self.pseudoRandomBytes(count: 20_000 + 13, seed: 42)
    let whole = SHA256Digest.hex(of: data)
    var digest = SHA256Digest()
    var offset = 0
    while offset < data.count {
      let end = min(offset + size, data.count)
      digest.update(data.subdata(in: offset..<end))
      offset = end
    }
    #expect(digest.finalizeHex() == whole)
  }

  @Test("random splits give the same digest as one update")
  func randomSplits() async throws {
    let data = Self.pseudoRandomBytes(count: 50_000 + 7, seed: 7)
    let reference = try await Self.sha256sum([data])[0]
    #expect(SHA256Digest.hex(of: data) == reference)
    var generator = SeededRandom(seed: 99)
    for _ in 0..<20 {
      var digest = SHA256Digest()
      var offset = 0
      data.withUnsafeBytes { buffer in
        while offset < buffer.count {
          // Mostly small pieces around the block size, now and then a large one.
          let limit = generator.next() % 8 == 0 ? 5000 : 130
          let size = min(Int(generator.next() % UInt64(limit)), buffer.count - offset)
          digest.update(UnsafeRawBufferPointer(rebasing: buffer[offset..<(offset + size)]))
          offset += size
        }
      }
      #expect(digest.finalizeHex() == reference)
    }
  }

  // MARK: - Helpers

  static func pseudoRandomBytes(count: Int, seed: UInt64) -> Data {
    var generator = SeededRandom(seed: seed)
    var bytes = [UInt8](repeating: 0, count: count)
    var index = 0
    while index < count {
      var word = generator.next()
      for _ in 0..<8 where index < count {
        bytes[index] = UInt8(truncatingIfNeeded: word)
        word >>= 8
        index += 1
      }
    }
    return Data(bytes)
  }

  /// The digests `sha256sum` prints for `samples`, written to temporary files and hashed in one run.
  static func sha256sum(_ samples: [Data]) async throws -> [String] {
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("sha256-tests-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }

    var paths: [String] = []
    for (index, sample) in samples.enumerated() {
      let url = directory.appendingPathComponent("sample-\(index)")
      try sample.write(to: url)
      paths.append(url.path)
    }

    let outcome = try await ChildProcess(executable: "sha256sum", arguments: ["--"] + paths)
      .run(output: .collected(limit: 1 << 20))
    #expect(outcome.succeeded, "sha256sum: \(outcome.standardError)")
    let text = outcome.standardOutput

    // Each line: "<64 hex digits>  <path>", in argument order.
    let digests = text.split(separator: "\n").map { String($0.prefix(64)) }
    try #require(digests.count == samples.count)
    return digests
  }
}
