import Foundation
import HybridAI
@testable import HybridAIOnDevice
import Testing

/// The real SmolLM2 model that `scripts/bootstrap` installs, and scratch files for bad-input tests.
enum TestModel {
  static let path: String = ModelLocator.defaultModelPath()
  /// Gemma 3 270M base (no chat template), next to SmolLM2 (scripts/bootstrap joins it from four wheels).
  static var gemmaPath: String {
    URL(fileURLWithPath: path).deletingLastPathComponent().appendingPathComponent("gemma-3-270m-q4_k_m.gguf").path
  }

  static func requireModel() throws -> SystemLanguageModel {
    try #require(FileManager.default.fileExists(atPath: path),
                 "the test model is missing at \(path): run scripts/bootstrap (make test does)")
    return SystemLanguageModel(modelPath: path, configuration: .init(contextSize: 2048))
  }

  static let greedy = GenerationOptions(sampling: .greedy, maximumResponseTokens: 24)

  /// A fresh scratch directory, removed by the caller.
  static func scratchDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("hybridai-tests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
  }

  /// A copy of the test model in `directory` with the first occurrence of `original` in its
  /// metadata replaced by `replacement` (same length, so the file's layout stays valid): a GGUF
  /// whose key or template text differs, without a GGUF writer.
  static func patchedCopy(in directory: URL, replacing original: String, with replacement: String) throws -> URL {
    precondition(original.utf8.count == replacement.utf8.count, "a patch must keep the length")
    var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
    let range = try #require(bytes.range(of: Data(original.utf8)), "\(original) is not in \(path)")
    bytes.replaceSubrange(range, with: Data(replacement.utf8))
    let copy = directory.appendingPathComponent("patched.gguf")
    try bytes.write(to: copy)
    return copy
  }

  /// llama.cpp's source tree from the pinned sdist that scripts/bootstrap unpacks next to the
  /// models (`.deps/src/llama-cpp-python-*/vendor/llama.cpp`): its vocabulary-only GGUFs and
  /// model templates are test data.
  static func llamaCppSource() throws -> URL {
    let sources = URL(fileURLWithPath: path).deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("src")
    let sdist = try #require(
      (try? FileManager.default.contentsOfDirectory(atPath: sources.path))?.sorted().last { $0.hasPrefix("llama-cpp-python-") },
      "llama.cpp's source is missing under \(sources.path): run scripts/bootstrap")
    return sources.appendingPathComponent(sdist).appendingPathComponent("vendor/llama.cpp")
  }

  /// A model family's chat template from llama.cpp's `models/templates`.
  static func llamaCppTemplate(_ name: String) throws -> URL {
    try llamaCppSource().appendingPathComponent("models/templates").appendingPathComponent(name)
  }
}
