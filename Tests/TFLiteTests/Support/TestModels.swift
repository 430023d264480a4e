import Foundation
import HybridAITestSupport
import Testing

/// Where the test models, the reference Python and its script are (all installed by
/// scripts/bootstrap into .deps/ beside the package).
enum TestModels {
  static var directory: URL { TestRepository.modelsDirectory.appendingPathComponent("tflite") }

  static let selfieSegmentation = "selfie_segmentation.tflite"
  static let faceDetection = "face_detection_short_range.tflite"
  static let okayNabu = "okay_nabu.tflite"
  static let all = [selfieSegmentation, faceDetection, okayNabu]

  /// The path of test model `name`, or a test failure saying how to get it.
  static func path(_ name: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
    let path = directory.appendingPathComponent(name).path
    try #require(FileManager.default.fileExists(atPath: path),
                 "test model missing at \(path): run scripts/bootstrap (make test does)",
                 sourceLocation: sourceLocation)
    return path
  }

  static func data(_ name: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> Data {
    try Data(contentsOf: URL(fileURLWithPath: try path(name, sourceLocation: sourceLocation)))
  }

  /// A fresh empty temporary directory.
  static func temporaryDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("tflite-tests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
  }
}
