import Foundation

/// A media type HybridAI recognises from a file's first bytes, and the ``Modality`` it belongs to.
public struct MediaType: Sendable, Hashable, Codable, CustomStringConvertible {
  /// The MIME type, such as `image/png`.
  public let mimeType: String
  /// What kind of content it is.
  public let modality: Modality
  /// The usual file extension, without the dot.
  public let fileExtension: String

  public var description: String { mimeType }

  public static let png = MediaType(mimeType: "image/png", modality: .image, fileExtension: "png")
  public static let jpeg = MediaType(mimeType: "image/jpeg", modality: .image, fileExtension: "jpg")
  public static let webp = MediaType(mimeType: "image/webp", modality: .image, fileExtension: "webp")
  public static let gif = MediaType(mimeType: "image/gif", modality: .image, fileExtension: "gif")
  public static let heic = MediaType(mimeType: "image/heic", modality: .image, fileExtension: "heic")
  public static let wav = MediaType(mimeType: "audio/wav", modality: .audio, fileExtension: "wav")
  public static let mp3 = MediaType(mimeType: "audio/mpeg", modality: .audio, fileExtension: "mp3")
  public static let flac = MediaType(mimeType: "audio/flac", modality: .audio, fileExtension: "flac")
  public static let ogg = MediaType(mimeType: "audio/ogg", modality: .audio, fileExtension: "ogg")
  public static let mp4 = MediaType(mimeType: "video/mp4", modality: .video, fileExtension: "mp4")
  public static let pdf = MediaType(mimeType: "application/pdf", modality: .document, fileExtension: "pdf")
  public static let plainText = MediaType(mimeType: "text/plain", modality: .text, fileExtension: "txt")

  /// Every media type an ``Attachment`` may have.
  public static let all: [MediaType] = [png, jpeg, webp, gif, heic, wav, mp3, flac, ogg, mp4, pdf, plainText]

  /// The known media type with this MIME type (parameters such as `; charset=utf-8` ignored,
  /// common aliases such as `audio/x-wav` and `image/jpg` accepted).
  public static func named(_ mimeType: String) -> MediaType? {
    let bare = mimeType.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
    let canonical = aliases[bare] ?? bare
    return all.first { $0.mimeType == canonical }
  }

  private static let aliases = [
    "image/jpg": "image/jpeg", "image/heif": "image/heic", "audio/x-wav": "audio/wav", "audio/wave": "audio/wav",
    "audio/vnd.wave": "audio/wav", "audio/mp3": "audio/mpeg", "audio/x-flac": "audio/flac",
  ]
}
