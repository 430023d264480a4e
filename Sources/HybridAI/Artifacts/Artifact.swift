import Foundation

/// A binary result of a tool — an image, a sound, a file — that the model never sees as bytes.
///
/// Tools return artifacts with their output; an ``ArtifactStore`` keeps them and the model only
/// receives an ``ArtifactReference``'s short description.
///
/// ```swift
/// let speech = Artifact(data: wav, mimeType: "audio/wav", name: "speech.wav")
/// let report = Artifact(fileAt: URL(fileURLWithPath: "/tmp/report.pdf"),
///                       mimeType: "application/pdf", name: "report.pdf")
/// ```
public struct Artifact: Sendable, Hashable, Codable, Identifiable {
  /// Where an artifact's bytes are held until it is stored.
  public enum Content: Sendable, Hashable {
    /// The bytes, in memory.
    case data(Data)
    /// A local file holding the bytes; it is copied when the artifact is stored.
    case file(URL)
  }

  /// A unique identifier (a random UUID, lower-case), safe to use as a directory name.
  public let id: String
  /// The file name, already sanitised by ``ArtifactName/sanitized(_:)``.
  public let name: String
  /// The MIME type, such as `image/png` or `audio/wav`.
  public let mimeType: String
  /// The size in bytes: exact for in-memory data; for a file, its size when the artifact was
  /// made (0 if it could not be read then). The store records the size it actually copied.
  public let size: Int64
  /// The bytes or the file holding them.
  public let content: Content

  /// An artifact holding `data` in memory.
  /// - Parameters:
  ///   - data: The artifact's bytes.
  ///   - mimeType: Its MIME type.
  ///   - name: A proposed file name; it is sanitised.
  public init(data: Data, mimeType: String, name: String) {
    self.init(id: Self.newID(), name: name, mimeType: mimeType, size: Int64(data.count), content: .data(data))
  }

  /// An artifact whose bytes are in the local file at `fileAt`; the file is copied when the
  /// artifact is stored, so it may be removed afterwards.
  /// - Parameters:
  ///   - fileAt: A file URL.
  ///   - mimeType: Its MIME type.
  ///   - name: A proposed file name; it is sanitised.
  public init(fileAt url: URL, mimeType: String, name: String) {
    // (Of the file a link points to: attributesOfItem describes a link itself.)
    let attributes = try? FileManager.default.attributesOfItem(atPath: url.resolvingSymlinksInPath().path)
    let size = (attributes?[.size] as? NSNumber)?.int64Value ?? 0
    self.init(id: Self.newID(), name: name, mimeType: mimeType, size: size, content: .file(url))
  }

  private init(id: String, name: String, mimeType: String, size: Int64, content: Content) {
    self.id = id
    self.name = ArtifactName.sanitized(name)
    self.mimeType = mimeType
    self.size = size
    self.content = content
  }

  /// The in-memory bytes, or `nil` for a file-backed artifact.
  public var data: Data? {
    if case .data(let data) = content { return data }
    return nil
  }

  /// The source file, or `nil` for an in-memory artifact.
  public var fileURL: URL? {
    if case .file(let url) = content { return url }
    return nil
  }

  private static func newID() -> String { UUID().uuidString.lowercased() }

  /// Whether `id` can name an artifact: 1 to 128 ASCII letters, digits, `-` or `_`.
  package static func isValidID(_ id: String) -> Bool {
    !id.isEmpty && id.utf8.count <= 128
      && id.utf8.allSatisfy { byte in
        (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
          || byte == 0x2D || byte == 0x5F
      }
  }

  private enum CodingKeys: String, CodingKey {
    case id, name, mimeType, size, data, fileURL
  }

  /// Decodes an artifact; the identifier is validated and the name sanitised again.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    let id = try container.decode(String.self, forKey: .id)
    guard Self.isValidID(id) else {
      throw DecodingError.dataCorruptedError(forKey: .id, in: container, debugDescription: "invalid artifact id \(id)")
    }
    let content: Content
    if let data = try container.decodeIfPresent(Data.self, forKey: .data) {
      content = .data(data)
    } else {
      content = .file(try container.decode(URL.self, forKey: .fileURL))
    }
    self.init(id: id, name: try container.decode(String.self, forKey: .name),
              mimeType: try container.decode(String.self, forKey: .mimeType),
              size: try container.decode(Int64.self, forKey: .size), content: content)
  }

  /// Encodes the artifact, in-memory bytes as base64.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(id, forKey: .id)
    try container.encode(name, forKey: .name)
    try container.encode(mimeType, forKey: .mimeType)
    try container.encode(size, forKey: .size)
    switch content {
    case .data(let data): try container.encode(data, forKey: .data)
    case .file(let url): try container.encode(url, forKey: .fileURL)
    }
  }
}
