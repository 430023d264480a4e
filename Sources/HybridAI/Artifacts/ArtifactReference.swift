import Foundation

/// What is known about an artifact without its bytes: what the model, the transcript and the
/// response carry.
public struct ArtifactReference: Sendable, Hashable, Codable, Identifiable {
  /// The artifact's identifier (``Artifact/id``).
  public var id: String
  /// Its sanitised file name.
  public var name: String
  /// Its MIME type.
  public var mimeType: String
  /// Its size in bytes.
  public var size: Int64
  /// The local file holding it, once an ``ArtifactStore`` has stored it.
  public var fileURL: URL?

  /// A reference with the given fields.
  public init(id: String, name: String, mimeType: String, size: Int64, fileURL: URL? = nil) {
    self.id = id
    self.name = name
    self.mimeType = mimeType
    self.size = size
    self.fileURL = fileURL
  }

  /// A reference to `artifact`, not yet stored.
  public init(_ artifact: Artifact) {
    self.init(id: artifact.id, name: artifact.name, mimeType: artifact.mimeType, size: artifact.size)
  }

  /// The short text a model sees in place of the artifact — never its bytes or its path, e.g.
  /// `[artifact 0b6f1c2e-5d4a-4c3b-9a8e-7f6d5c4b3a21 "speech.wav" audio/wav 12.3 kB]`.
  public var modelDescription: String {
    let quotedName = name.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
    return "[artifact \(id) \"\(quotedName)\" \(mimeType) \(Self.formatSize(size))]"
  }

  /// A size in decimal units with one decimal place, independent of locale: `512 B`, `12.3 kB`,
  /// `4.0 MB`.
  static func formatSize(_ bytes: Int64) -> String {
    if bytes < 1000 { return "\(bytes) B" }
    let units = ["kB", "MB", "GB", "TB", "PB", "EB"]
    var unit = 0
    var scale: Int64 = 1000
    while unit < units.count - 1, bytes / scale >= 1000 {
      scale *= 1000
      unit += 1
    }
    func roundedTenths(_ scale: Int64) -> Int64 {
      let divisor = scale / 10
      let (quotient, remainder) = bytes.quotientAndRemainder(dividingBy: divisor)
      return remainder >= divisor - remainder ? quotient + 1 : quotient
    }
    var tenths = roundedTenths(scale)
    if tenths >= 10_000, unit < units.count - 1 {
      unit += 1
      scale *= 1000
      tenths = roundedTenths(scale)
    }
    return "\(tenths / 10).\(tenths % 10) \(units[unit])"
  }
}
