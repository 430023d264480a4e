import Foundation
import HybridAI
import Synchronization
import TFLiteImage
import Testing

/// Shared helpers: a tool context that records progress, temporary directories, the test model,
/// and a generated portrait.
enum ToolTestSupport {
  static let repositoryRoot = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

  /// `$HYBRIDAI_MODELS_DIR/tflite/selfie_segmentation.tflite`, else `.deps/models/tflite/…`.
  static func selfieSegmentationModelPath(sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
    let directory: URL
    if let models = ProcessInfo.processInfo.environment["HYBRIDAI_MODELS_DIR"], !models.isEmpty {
      directory = URL(fileURLWithPath: models).appendingPathComponent("tflite")
    } else {
      directory = repositoryRoot.appendingPathComponent(".deps/models/tflite")
    }
    let path = directory.appendingPathComponent("selfie_segmentation.tflite").path
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
  static func output(of executable: String, _ arguments: [String]) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    let pipe = Pipe()
    process.standardOutput = pipe
    try process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
  }

  /// A head and shoulders in front of a sky-blue wall (as `hybrid demo` draws it).
  static func portrait(width: Int, height: Int) throws -> Bitmap {
    var pixels = [UInt8](repeating: 0, count: width * height * 3)
    let centre = (x: Double(width) / 2, y: Double(height) * 0.38), radius = Double(height) * 0.17
    for y in 0..<height {
      for x in 0..<width {
        let dx = Double(x) - centre.x, dy = Double(y) - centre.y
        let inHead = dx * dx + dy * dy * 0.8 < radius * radius
        let shoulder = Double(width) * 0.12 + max(0, Double(y) - Double(height) * 0.55) * 0.9
        let inBody = Double(y) > Double(height) * 0.55 && abs(dx) < shoulder
        let colour: (UInt8, UInt8, UInt8) =
          inHead ? (224, 172, 140) : inBody ? (40, 60, 110) : (UInt8(150 + y * 60 / height), 190, 235)
        let offset = (y * width + x) * 3
        pixels[offset] = colour.0
        pixels[offset + 1] = colour.1
        pixels[offset + 2] = colour.2
      }
    }
    return try Bitmap(width: width, height: height, channels: 3, pixels: pixels)
  }
}

/// Progress reports received through a ``ToolContext``.
final class ProgressLog: Sendable {
  private let entries = Mutex<[(Double, String)]>([])

  func append(_ fraction: Double, _ message: String) { entries.withLock { $0.append((fraction, message)) } }

  var fractions: [Double] { entries.withLock { $0.map(\.0) } }
}
