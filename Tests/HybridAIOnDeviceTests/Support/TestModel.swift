import Foundation
import HybridAI
@testable import HybridAIOnDevice
import Testing

/// The real SmolLM2 model that `scripts/bootstrap` installs, and scratch files for bad-input tests.
enum TestModel {
  static let path: String = ModelLocator.defaultModelPath()

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
}
