import Foundation
@testable import HybridAI
@testable import HybridAIFileStorage
import HybridAIProcess

/// SHA-256 for the tests' checks, independent of the swift-crypto the downloader uses: the core's
/// own `SHA256Digest` (checked against NIST vectors and coreutils in HybridAITests).
enum TestSHA256 {
  /// The lowercase hex digest of `data`: from coreutils' `sha256sum` when there is one (debug
  /// builds of the Swift code below are slow for megabytes), else computed here.
  static func hex(_ data: Data) async -> String {
    if data.count > 64 << 10, let digest = await coreutils(data) { return digest }
    return computed(data)
  }

  private static func coreutils(_ data: Data) async -> String? {
    guard FileManager.default.isExecutableFile(atPath: "/usr/bin/sha256sum") else { return nil }
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("sha-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: file) }
    guard (try? data.write(to: file)) != nil,
          let outcome = try? await ChildProcess(executable: "/usr/bin/sha256sum", arguments: [file.path])
            .run(output: .collected(limit: 4096)),
          outcome.succeeded else { return nil }
    let digest = String(outcome.standardOutput.prefix(64))
    return digest.count == 64 ? digest : nil
  }

  /// The digest computed in Swift.
  static func computed(_ data: Data) -> String { SHA256Digest.hex(of: data) }
}
