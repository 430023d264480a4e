import Foundation

/// Builds PNG files byte by byte — independently of libpng — so tests can feed the decoder
/// colour types, bit depths, interlacing and broken headers that the encoder never writes.
/// The zlib stream uses stored (uncompressed) deflate blocks.
enum PNGBuilder {
  static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

  enum ColorType: UInt8 {
    case gray = 0, rgb = 2, palette = 3, grayAlpha = 4, rgba = 6
  }

  /// A complete PNG. `scanlines` are the filtered rows (filter byte first) as the IDAT stream
  /// holds them — use ``unfiltered(rows:)`` or ``adam7(pixels:width:height:bytesPerPixel:)``.
  static func png(
    width: UInt32, height: UInt32, bitDepth: UInt8, colorType: ColorType, interlaced: Bool = false,
    scanlines: [UInt8], chunksBeforeData: [(String, [UInt8])] = []
  ) -> Data {
    var bytes = signature
    bytes += chunk("IHDR", ihdr(width: width, height: height, bitDepth: bitDepth, colorType: colorType.rawValue,
                                 interlaced: interlaced))
    for (type, data) in chunksBeforeData { bytes += chunk(type, data) }
    bytes += chunk("IDAT", zlibStored(scanlines))
    bytes += chunk("IEND", [])
    return Data(bytes)
  }

  static func ihdr(width: UInt32, height: UInt32, bitDepth: UInt8, colorType: UInt8, interlaced: Bool = false)
    -> [UInt8]
  {
    bigEndian(width) + bigEndian(height) + [bitDepth, colorType, 0, 0, interlaced ? 1 : 0]
  }

  /// One chunk: length, type, data, CRC-32 of type and data.
  static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
    let typeBytes = Array(type.utf8)
    return bigEndian(UInt32(data.count)) + typeBytes + data + bigEndian(crc32(typeBytes + data))
  }

  /// Rows prefixed with filter type 0 (none).
  static func unfiltered(rows: [[UInt8]]) -> [UInt8] { rows.flatMap { [0] + $0 } }

  /// The seven Adam7 passes of 8-bit `pixels`, each row prefixed with filter type 0.
  static func adam7(pixels: [UInt8], width: Int, height: Int, bytesPerPixel: Int) -> [UInt8] {
    let passes = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]
    var out: [UInt8] = []
    for (x0, y0, dx, dy) in passes where x0 < width && y0 < height {
      for y in stride(from: y0, to: height, by: dy) {
        out.append(0)
        for x in stride(from: x0, to: width, by: dx) {
          let start = (y * width + x) * bytesPerPixel
          out += pixels[start..<start + bytesPerPixel]
        }
      }
    }
    return out
  }

  /// A zlib stream of stored deflate blocks.
  static func zlibStored(_ data: [UInt8]) -> [UInt8] {
    var out: [UInt8] = [0x78, 0x01]
    var offset = 0
    repeat {
      let length = min(65535, data.count - offset)
      let final: UInt8 = offset + length == data.count ? 1 : 0
      out.append(final)
      out += [UInt8(length & 0xFF), UInt8(length >> 8), UInt8(~length & 0xFF), UInt8((~length >> 8) & 0xFF)]
      out += data[offset..<offset + length]
      offset += length
    } while offset < data.count
    return out + bigEndian(adler32(data))
  }

  static func bigEndian(_ value: UInt32) -> [UInt8] {
    [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)]
  }

  static func crc32(_ bytes: [UInt8]) -> UInt32 {
    var crc: UInt32 = 0xFFFF_FFFF
    for byte in bytes {
      crc ^= UInt32(byte)
      for _ in 0..<8 { crc = (crc & 1) != 0 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
    }
    return ~crc
  }

  static func adler32(_ bytes: [UInt8]) -> UInt32 {
    var a: UInt32 = 1, b: UInt32 = 0
    for byte in bytes {
      a = (a + UInt32(byte)) % 65521
      b = (b + a) % 65521
    }
    return (b << 16) | a
  }
}
