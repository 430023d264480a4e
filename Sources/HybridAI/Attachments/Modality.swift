/// A kind of content a model can take or give: text, or one of the kinds of ``Attachment``.
public enum Modality: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
  case text
  case image
  case audio
  case video
  /// PDF documents.
  case document

  public var description: String { rawValue }

  /// `modalities` in a fixed order (text, image, audio, video, document), as APIs list them.
  public static func ordered(_ modalities: Set<Modality>) -> [Modality] {
    allCases.filter(modalities.contains)
  }
}
