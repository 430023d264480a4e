/// The rules for registry model names (`docs/model-delivery.md`, "Names"): 1–64 characters of
/// `[A-Za-z0-9_-]`, starting with a letter or digit.
///
/// A name becomes a directory under the downloader's directory and a path segment of a URL, so it
/// is checked before any file or network I/O: no `.`, `/`, `..`, `%2F`, spaces or NULs get through.
enum ModelName {
  /// The longest name allowed.
  static let maxLength = 64

  /// Whether `name` is a valid model name.
  static func isValid(_ name: String) -> Bool {
    let bytes = Array(name.utf8)
    guard (1...maxLength).contains(bytes.count), isAlphanumeric(bytes[0]) else { return false }
    return bytes.allSatisfy { isAlphanumeric($0) || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "-") }
  }

  /// Throws ``ModelDownloadError/invalidModelName(_:)`` unless `name` is valid.
  static func validate(_ name: String) throws(ModelDownloadError) {
    guard isValid(name) else { throw .invalidModelName(name) }
  }

  private static func isAlphanumeric(_ byte: UInt8) -> Bool {
    (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
      || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
  }
}

/// Checks for the other identifiers the registry hands out.
enum RegistryIdentifiers {
  /// A blob id: 64 lowercase hex digits (a SHA-256).
  static func isSHA256(_ text: String) -> Bool {
    let bytes = Array(text.utf8)
    return bytes.count == 64
      && bytes.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0) }
  }

  /// A version: 1–20 decimal digits.
  static func isVersion(_ text: String) -> Bool {
    let bytes = Array(text.utf8)
    return (1...20).contains(bytes.count) && bytes.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
  }

  /// An installation id fit for a header: 1–128 visible ASCII characters.
  static func isInstallationID(_ text: String) -> Bool {
    let bytes = Array(text.utf8)
    return (1...128).contains(bytes.count) && bytes.allSatisfy { (0x21...0x7E).contains($0) }
  }
}
