/// Lowercase hexadecimal, as SHA-256 ids and signatures are written on the wire.
enum Hex {
  private static let digits = Array("0123456789abcdef".utf8)

  static func encode(_ bytes: some Sequence<UInt8>) -> String {
    var text: [UInt8] = []
    text.reserveCapacity(bytes.underestimatedCount * 2)
    for byte in bytes {
      text.append(digits[Int(byte >> 4)])
      text.append(digits[Int(byte & 0x0F)])
    }
    return String(decoding: text, as: UTF8.self)
  }

  /// The bytes of lowercase hex text, or `nil` when it has an odd length or another character.
  static func decode(_ text: some StringProtocol) -> [UInt8]? {
    let characters = Array(text.utf8)
    guard characters.count.isMultiple(of: 2) else { return nil }
    var bytes: [UInt8] = []
    bytes.reserveCapacity(characters.count / 2)
    var index = 0
    while index < characters.count {
      guard let high = value(characters[index]), let low = value(characters[index + 1]) else { return nil }
      bytes.append(high << 4 | low)
      index += 2
    }
    return bytes
  }

  private static func value(_ character: UInt8) -> UInt8? {
    switch character {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): character - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): character - UInt8(ascii: "a") + 10
    default: nil
    }
  }
}
