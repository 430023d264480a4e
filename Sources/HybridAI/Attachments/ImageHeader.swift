import Foundation

/// The width and height an image file declares in its header (PNG, GIF, BMP, JPEG), read
/// without decoding it: what a decoder would allocate, known before it does (a small file that
/// declares a huge image is refused unread).
///
/// ```swift
/// if let (width, height) = ImageHeader.dimensions(of: bytes), width * height > 64 << 20 { … }
/// ```
public enum ImageHeader {
  /// `nil` when the bytes are none of these formats or the header is cut short. The values are
  /// as declared: zero, or (BMP) up to 2³¹, is possible.
  public static func dimensions(of data: Data) -> (width: Int, height: Int)? {
    let bytes = [UInt8](data.prefix(64 * 1024))
    if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]), bytes.count >= 24 {
      return (bigEndian(bytes, 16, 4), bigEndian(bytes, 20, 4))
    }
    if bytes.starts(with: Array("GIF8".utf8)), bytes.count >= 10 {
      return (littleEndian(bytes, 6, 2), littleEndian(bytes, 8, 2))
    }
    if bytes.starts(with: Array("BM".utf8)), bytes.count >= 26 {
      let height = Int32(bitPattern: UInt32(littleEndian(bytes, 22, 4)))
      return (Int(Int32(bitPattern: UInt32(littleEndian(bytes, 18, 4)))), Int(height.magnitude))
    }
    if bytes.starts(with: [0xFF, 0xD8]) { return jpegDimensions(bytes) }
    return nil
  }

  /// The size in the first start-of-frame segment (SOF0…SOF15 but DHT, JPG and DAC).
  private static func jpegDimensions(_ bytes: [UInt8]) -> (width: Int, height: Int)? {
    var index = 2
    while index + 9 < bytes.count {
      guard bytes[index] == 0xFF else { return nil }
      let marker = bytes[index + 1]
      if marker == 0xFF { index += 1; continue }   // fill byte
      if (0xD0...0xD9).contains(marker) || marker == 0x01 { index += 2; continue }   // no length
      let length = bigEndian(bytes, index + 2, 2)
      if (0xC0...0xCF).contains(marker), ![0xC4, 0xC8, 0xCC].contains(marker) {
        return (bigEndian(bytes, index + 7, 2), bigEndian(bytes, index + 5, 2))
      }
      guard length >= 2 else { return nil }
      index += 2 + length
    }
    return nil
  }

  private static func bigEndian(_ bytes: [UInt8], _ offset: Int, _ count: Int) -> Int {
    bytes[offset..<offset + count].reduce(0) { $0 << 8 | Int($1) }
  }

  private static func littleEndian(_ bytes: [UInt8], _ offset: Int, _ count: Int) -> Int {
    bytes[offset..<offset + count].reversed().reduce(0) { $0 << 8 | Int($1) }
  }
}
