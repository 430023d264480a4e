import Foundation

/// The encoded image formats ``Bitmap`` reads and writes.
public enum ImageFormat: String, Sendable, Hashable, CaseIterable {
  /// Portable Network Graphics, through libpng.
  case png
  /// JPEG (JFIF/EXIF), through libjpeg-turbo.
  case jpeg

  /// Recognises a format by its magic bytes: `89 50 4E 47 0D 0A 1A 0A` for PNG, `FF D8 FF` for
  /// JPEG. Returns `nil` for anything else (file names and extensions play no part).
  public init?(sniffing data: Data) {
    if data.starts(with: ImageFormat.pngSignature) {
      self = .png
    } else if data.starts(with: ImageFormat.jpegSignature) {
      self = .jpeg
    } else {
      return nil
    }
  }

  /// The name used in messages: "PNG" or "JPEG".
  public var displayName: String { rawValue.uppercased() }

  static let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
  static let jpegSignature: [UInt8] = [0xFF, 0xD8, 0xFF]

  /// What unsupported bytes look like, for ``ImageError/unsupportedFormat(description:)``.
  static func describeUnsupported(_ data: Data) -> String {
    let known: [(prefix: [UInt8], name: String)] = [
      (Array("GIF8".utf8), "a GIF image"),
      (Array("BM".utf8), "a BMP image"),
      ([0x49, 0x49, 0x2A, 0x00], "a TIFF image"),
      ([0x4D, 0x4D, 0x00, 0x2A], "a TIFF image"),
    ]
    for (prefix, name) in known where data.starts(with: prefix) { return name }
    if data.count >= 12, data.prefix(4).elementsEqual("RIFF".utf8),
      data.dropFirst(8).prefix(4).elementsEqual("WEBP".utf8)
    {
      return "a WebP image"
    }
    let head = data.prefix(8).map { String(format: "%02X", $0) }.joined(separator: " ")
    return "unrecognised data starting with \(head)"
  }
}
