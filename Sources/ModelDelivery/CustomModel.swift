/// A model file downloaded from the registry and verified, ready to load.
///
/// ```swift
/// let model = try await downloader.getModel(name: "selfie_segmentation", downloadType: .localModel)
/// let interpreter = try Interpreter(modelPath: model.path)
/// ```
///
/// The file at ``path`` stays in place until a newer version has been downloaded and verified, or
/// the model is deleted with ``ModelDownloader/deleteDownloadedModel(name:)``.
public struct CustomModel: Sendable, Hashable, Codable, CustomStringConvertible {
  /// The registry model's name.
  public let name: String
  /// The registry version (a decimal integer, as a string).
  public let version: String
  /// The absolute path of the model file on this device.
  public let path: String
  /// The file's size in bytes.
  public let size: Int64
  /// The file's SHA-256, lowercase hex.
  public let hash: String

  /// A model description (the downloader makes these; tests may too).
  public init(name: String, version: String, path: String, size: Int64, hash: String) {
    self.name = name
    self.version = version
    self.path = path
    self.size = size
    self.hash = hash
  }

  public var description: String {
    "\(name) version \(version) (\(size) bytes, sha256 \(hash.prefix(12))…) at \(path)"
  }
}
