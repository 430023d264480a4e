/// The name of a blob in a ``BlobStore``: the SHA-256 of its bytes, as 64 lowercase hex digits.
///
/// Only a valid digest can be made, so a digest is always safe to use as a file or object name.
public struct BlobDigest: Hashable, Sendable, CustomStringConvertible, Codable {
  /// The 64 lowercase hex digits.
  public let hex: String

  /// The digest written `hex`, or `nil` unless it is 64 lowercase hex digits.
  public init?(hex: String) {
    guard Self.isValid(hex) else { return nil }
    self.hex = hex
  }

  public var description: String { hex }

  /// Whether `text` is 64 lowercase hex digits.
  public static func isValid(_ text: String) -> Bool {
    text.utf8.count == 64 && text.utf8.allSatisfy {
      (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0)
    }
  }

  public init(from decoder: any Decoder) throws {
    let text = try decoder.singleValueContainer().decode(String.self)
    guard let digest = BlobDigest(hex: text) else {
      throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not a SHA-256 digest: \(text)"))
    }
    self = digest
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(hex)
  }
}
