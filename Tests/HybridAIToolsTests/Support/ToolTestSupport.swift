import Foundation
import HybridAIProcess
import HybridAITestSupport
import HybridAI
import Synchronization
import TFLiteImage
import Testing

/// Shared helpers: a tool context that records progress, temporary directories, the test model,
/// and a generated portrait.
enum ToolTestSupport {
  /// `$HYBRIDAI_MODELS_DIR/tflite/selfie_segmentation.tflite`, else `.deps/models/tflite/…`.
  static func selfieSegmentationModelPath(sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
    let path = TestRepository.modelsDirectory.appendingPathComponent("tflite/selfie_segmentation.tflite").path
    try #require(FileManager.default.fileExists(atPath: path),
                 "test model missing at \(path): run scripts/bootstrap", sourceLocation: sourceLocation)
    return path
  }

  /// A fresh empty temporary directory.
  static func temporaryDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("hybridai-tools-tests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
  }

  /// A context whose progress reports are kept in `progress`.
  static func context(_ progress: ProgressLog = ProgressLog()) -> ToolContext {
    ToolContext(callID: "call-\(UUID().uuidString)", transcript: Transcript(),
                progressHandler: { fraction, message in progress.append(fraction, message) })
  }

  /// Runs `executable` with `arguments` and returns its trimmed stdout.
  static func output(of executable: String, _ arguments: [String]) async throws -> String {
    try await ChildProcess.run(URL(fileURLWithPath: executable), arguments).standardOutput
      .trimmingCharacters(in: .whitespacesAndNewlines)
  }
}

/// Progress reports received through a ``ToolContext``.
final class ProgressLog: Sendable {
  private let entries = Mutex<[(Double, String)]>([])

  func append(_ fraction: Double, _ message: String) { entries.withLock { $0.append((fraction, message)) } }

  var fractions: [Double] { entries.withLock { $0.map(\.0) } }
}
