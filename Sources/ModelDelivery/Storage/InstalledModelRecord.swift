import Foundation
import HybridAIWire

/// What the store keeps about an installed model, in `<directory>/<name>/model.json`; written
/// atomically (temporary file, `fsync`, rename) only after the file it names is in place.
struct InstalledModelRecord: Codable, Sendable, Hashable {
  var name: String
  var version: String
  var sha256: String
  var sizeBytes: Int64
  /// The file's name inside the model's directory: `<sha256>.<format extension>`.
  var fileName: String
  var format: String?
  var installTime: Date

  /// The model file's name for a blob: `<sha256>.tflite`, `.gguf`, else `.bin`.
  static func fileName(sha256: String, format: String?) -> String {
    switch format {
    case "tflite": "\(sha256).tflite"
    case "gguf": "\(sha256).gguf"
    default: "\(sha256).bin"
    }
  }

  /// Whether the record is consistent with the rules (so its file name is safe to join to a path).
  func isWellFormed(for name: String) -> Bool {
    self.name == name && RegistryIdentifiers.isValidSHA256(sha256) && sizeBytes >= 0 && !version.isEmpty
      && fileName == Self.fileName(sha256: sha256, format: format)
  }
}
