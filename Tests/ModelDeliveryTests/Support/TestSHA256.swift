import Foundation
@testable import HybridAI

/// SHA-256 for the tests' checks, independent of the swift-crypto the downloader uses: the core's
/// own `SHA256Digest` (checked against NIST vectors and coreutils in HybridAITests).
enum TestSHA256 {
  /// The lowercase hex digest of `data`: from coreutils' `sha256sum` when there is one (debug
  /// builds of the Swift code below are slow for megabytes), else computed here.
  static func hex(_ data: Data) -> String {
    if data.count > 64 << 10, let digest = coreutils(data) { return digest }
    return computed(data)
  }

  private static func coreutils(_ data: Data) -> String? {
    guard FileManager.default.isExecutableFile(atPath: "/usr/bin/sha256sum") else { return nil }
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("sha-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: file) }
    guard (try? data.write(to: file)) != nil else { return nil }
    let process = Process()
    let output = Pipe()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/sha256sum")
    process.arguments = [file.path]
    process.standardOutput = output
    guard (try? process.run()) != nil else { return nil }
    let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    let digest = String(text.prefix(64))
    return process.terminationStatus == 0 && digest.count == 64 ? digest : nil
  }

  /// The digest computed in Swift.
  static func computed(_ data: Data) -> String { SHA256Digest.hex(of: data) }
}
