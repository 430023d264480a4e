import Foundation

/// Tells a file's media type from its bytes (magic numbers), never from its name, and checks that
/// the formats that say where they end (PNG, JPEG, WAV, PDF) are not cut short.
enum MediaTypeSniffer {
  /// How many leading bytes ``detect(head:)`` needs.
  static let headLength = 4096
  /// How many trailing bytes ``isComplete(_:head:tail:totalSize:)`` needs.
  static let tailLength = 1024

  /// What the file is, from its first bytes; `nil` when it is none of ``MediaType/all``.
  static func detect(head: Data) -> MediaType? {
    let bytes = [UInt8](head.prefix(headLength))
    func starts(_ magic: [UInt8], at offset: Int = 0) -> Bool {
      bytes.count >= offset + magic.count && Array(bytes[offset..<offset + magic.count]) == magic
    }
    func ascii(_ text: String, at offset: Int = 0) -> Bool { starts(Array(text.utf8), at: offset) }

    if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
    if starts([0xFF, 0xD8, 0xFF]) { return .jpeg }
    if ascii("GIF87a") || ascii("GIF89a") { return .gif }
    if ascii("RIFF"), ascii("WEBP", at: 8) { return .webp }
    if ascii("RIFF"), ascii("WAVE", at: 8) { return .wav }
    if ascii("fLaC") { return .flac }
    if ascii("OggS") { return .ogg }
    if ascii("%PDF-") { return .pdf }
    if ascii("ID3") { return .mp3 }
    if bytes.count >= 2, bytes[0] == 0xFF, bytes[1] & 0xE0 == 0xE0, bytes[1] & 0x06 != 0 { return .mp3 }   // MPEG audio frame
    if ascii("ftyp", at: 4), bytes.count >= 12 {
      let brand = String(decoding: bytes[8..<12], as: UTF8.self)
      if ["heic", "heix", "hevc", "heim", "heis", "mif1", "msf1"].contains(brand) { return .heic }
      return .mp4   // isom, mp41, mp42, avc1, M4V , …
    }
    if isPlainText(bytes) { return looksLikeMarkup(bytes) ? nil : .plainText }
    return nil
  }

  /// A name for bytes that are not a supported kind but recognisable (for error messages).
  static func describeUnsupported(head: Data) -> String? {
    let bytes = [UInt8](head.prefix(headLength))
    if isPlainText(bytes), looksLikeMarkup(bytes) {
      let start = String(decoding: bytes.prefix(256), as: UTF8.self).lowercased()
      return start.contains("<svg") ? "image/svg+xml" : start.contains("<html") || start.contains("<!doctype html") ? "text/html" : "markup"
    }
    if bytes.starts(with: [0x50, 0x4B, 0x03, 0x04]) { return "application/zip" }
    if bytes.starts(with: [0x7F, 0x45, 0x4C, 0x46]) { return "an executable (ELF)" }
    return nil
  }

  /// Whether a file of `type` is whole: PNG ends with its IEND chunk, JPEG with its end marker,
  /// a WAV's RIFF size matches the file, a PDF has `%%EOF` near its end. Other kinds are not checked.
  static func isComplete(_ type: MediaType, head: Data, tail: Data, totalSize: Int64) -> Bool {
    let end = [UInt8](tail)
    switch type {
    case .png:
      let iend: [UInt8] = [0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82]
      return end.count >= iend.count && Array(end.suffix(iend.count)) == iend
    case .jpeg:
      let trimmed = end.reversed().drop { $0 == 0x00 || $0 == 0x0A || $0 == 0x0D || $0 == 0x20 }
      return Array(trimmed.prefix(2)) == [0xD9, 0xFF]
    case .wav:
      let bytes = [UInt8](head.prefix(8))
      guard bytes.count == 8 else { return false }
      let riffSize = Int64(bytes[4]) | Int64(bytes[5]) << 8 | Int64(bytes[6]) << 16 | Int64(bytes[7]) << 24
      return riffSize + 8 <= totalSize
    case .pdf:
      return String(decoding: end, as: UTF8.self).contains("%%EOF")
    default:
      return true
    }
  }

  /// UTF-8 without NUL bytes (a cut multi-byte character at the end of the sample is allowed).
  private static func isPlainText(_ bytes: [UInt8]) -> Bool {
    guard !bytes.contains(0) else { return false }
    for cut in 0...min(3, bytes.count) where String(validating: bytes.dropLast(cut), as: UTF8.self) != nil { return true }
    return false
  }

  /// HTML, SVG or XML: text, but not plain text to hand a model as a document.
  private static func looksLikeMarkup(_ bytes: [UInt8]) -> Bool {
    let start = String(decoding: bytes.prefix(512), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
    return start.hasPrefix("<!doctype html") || start.hasPrefix("<html") || start.hasPrefix("<svg") || start.hasPrefix("<?xml")
  }
}
