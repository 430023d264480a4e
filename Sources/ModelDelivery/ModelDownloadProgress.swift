/// How far a model download has come, as reported by ``ModelDownloader/progress(for:)``.
public struct ModelDownloadProgress: Sendable, Hashable, CustomStringConvertible {
  /// The registry model's name.
  public var name: String
  /// The version being downloaded.
  public var version: String
  /// Bytes of the file on this device so far (a resumed download starts above zero).
  public var bytesReceived: Int64
  /// The file's size.
  public var totalBytes: Int64

  /// A progress report.
  public init(name: String, version: String, bytesReceived: Int64, totalBytes: Int64) {
    self.name = name
    self.version = version
    self.bytesReceived = bytesReceived
    self.totalBytes = totalBytes
  }

  /// `bytesReceived / totalBytes`, from 0 to 1 (1 for an empty file).
  public var fractionCompleted: Double {
    totalBytes > 0 ? min(1, Double(bytesReceived) / Double(totalBytes)) : 1
  }

  /// Whether every byte is on this device (the file may still be being verified).
  public var isComplete: Bool { bytesReceived >= totalBytes }

  public var description: String {
    "\(name) version \(version): \(bytesReceived)/\(totalBytes) bytes"
  }
}
