/// The shapes of the identifiers the model registry and its clients exchange, one rule each for
/// both sides: the registry refuses anything else with `400 INVALID_ARGUMENT` before it gets near a
/// query or a file path, and `ModelDownloader` refuses it before it becomes a directory name, a URL
/// path segment or a header (no `.`, `/`, `..`, `%2F`, spaces or NULs get through).
public enum RegistryIdentifiers {
  public static let maxModelNameLength = 64
  public static let maxInstallationIdLength = 128
  /// Version numbers are at most this many decimal digits (and have no leading zero).
  public static let maxVersionDigits = 10

  /// A model name: 1–64 characters of `[A-Za-z0-9_-]`, starting with a letter or digit.
  public static func isValidModelName(_ name: some StringProtocol) -> Bool {
    let bytes = Array(name.utf8)
    guard (1...maxModelNameLength).contains(bytes.count), isASCIIAlphanumeric(bytes[0]) else { return false }
    return bytes.allSatisfy { isASCIIAlphanumeric($0) || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "-") }
  }

  /// A version number as sent on the wire: a positive decimal integer without leading zeros.
  public static func version(from text: some StringProtocol) -> Int? {
    let bytes = Array(text.utf8)
    guard (1...maxVersionDigits).contains(bytes.count), bytes[0] != UInt8(ascii: "0"),
          bytes.allSatisfy(isASCIIDigit) else { return nil }
    return Int(text)
  }

  /// A blob id: lowercase hex SHA-256, 64 characters.
  public static func isValidSHA256(_ text: some StringProtocol) -> Bool {
    let bytes = Array(text.utf8)
    return bytes.count == 64 && bytes.allSatisfy(isLowercaseHexDigit)
  }

  /// An installation id: 1–128 visible ASCII characters (no spaces or controls).
  public static func isValidInstallationId(_ text: some StringProtocol) -> Bool {
    let bytes = Array(text.utf8)
    return (1...maxInstallationIdLength).contains(bytes.count) && bytes.allSatisfy { (0x21...0x7E).contains($0) }
  }

  public static func isASCIIDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }

  public static func isLowercaseHexDigit(_ byte: UInt8) -> Bool {
    isASCIIDigit(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
  }

  private static func isASCIIAlphanumeric(_ byte: UInt8) -> Bool {
    isASCIIDigit(byte) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
      || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
  }
}
