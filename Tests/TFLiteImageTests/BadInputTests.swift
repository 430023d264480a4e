import Foundation
import HybridAITestSupport
import Testing

@testable import TFLiteImage

/// Every kind of bad input ends in a typed ``ImageError`` — never a crash, an exit or output on
/// stderr from libpng or libjpeg.
@Suite("Bad input")
struct BadInputTests {
  private let limit = Bitmap.defaultMaximumPixelCount
  private let png = try! TestImages.gradient(width: 24, height: 16, channels: 3).pngData()
  private let jpeg = try! TestImages.gradient(width: 24, height: 16, channels: 3).jpegData()

  private func decodingError(_ data: Data, maximumPixelCount: Int = Bitmap.defaultMaximumPixelCount) -> ImageError? {
    do {
      _ = try Bitmap(data: data, maximumPixelCount: maximumPixelCount)
      return nil
    } catch {
      return error
    }
  }

  @Test("empty data")
  func empty() {
    #expect(decodingError(Data()) == .emptyData)
  }

  @Test("formats other than PNG and JPEG are named")
  func unsupported() {
    #expect(decodingError(Data("GIF89a\u{1}\u{0}".utf8)) == .unsupportedFormat(description: "a GIF image"))
    #expect(decodingError(Data("RIFF\0\0\0\0WEBPVP8 ".utf8)) == .unsupportedFormat(description: "a WebP image"))
    #expect(
      decodingError(Data("hello world".utf8))
        == .unsupportedFormat(description: "unrecognised data starting with 68 65 6C 6C 6F 20 77 6F"))
    #expect(
      decodingError(png.prefix(7))
        == .unsupportedFormat(description: "unrecognised data starting with 89 50 4E 47 0D 0A 1A"))
  }

  @Test("a PNG cut short is truncated, wherever it is cut")
  func truncatedPNG() {
    for length in [8, 20, 33, png.count / 2, png.count - 12, png.count - 1] {
      guard case .truncated(.png, let message) = decodingError(png.prefix(length)) else {
        Issue.record("prefix of \(length) bytes: \(String(describing: decodingError(png.prefix(length))))")
        continue
      }
      #expect(!message.isEmpty)
    }
  }

  @Test("a JPEG cut short is truncated, including one missing only its end marker")
  func truncatedJPEG() {
    for length in [3, 100, jpeg.count / 2, jpeg.count - 2] {
      guard case .truncated(.jpeg, let message) = decodingError(jpeg.prefix(length)) else {
        Issue.record("prefix of \(length) bytes: \(String(describing: decodingError(jpeg.prefix(length))))")
        continue
      }
      #expect(!message.isEmpty)
    }
  }

  @Test("random bytes after a PNG signature are corrupt, after a JPEG one corrupt or truncated")
  func randomBytes() {
    var generator = SeededRandom(seed: 6)
    for _ in 0..<20 {
      let noise = (0..<512).map { _ in UInt8.random(in: 0...255, using: &generator) }
      guard case .corrupt(.png, _) = decodingError(Data(PNGBuilder.signature + noise)) else {
        Issue.record("PNG: \(String(describing: decodingError(Data(PNGBuilder.signature + noise))))")
        continue
      }
      // Noise without markers makes libjpeg scan for one to the end of the data: corrupt or truncated.
      let jpegNoise = Data([0xFF, 0xD8, 0xFF] + noise)
      switch decodingError(jpegNoise) {
      case .corrupt(.jpeg, _), .truncated(.jpeg, _): continue
      default:
        Issue.record("JPEG: \(String(describing: decodingError(jpegNoise)))")
      }
    }
  }

  @Test("a huge size declared in IHDR is refused before allocating")
  func hugePNG() {
    let bomb = PNGBuilder.png(
      width: 100_000, height: 100_000, bitDepth: 8, colorType: .rgb, scanlines: [0, 1, 2, 3])
    #expect(
      decodingError(bomb) == .tooLarge(width: 100_000, height: 100_000, maximumPixelCount: limit))
    // Beyond libpng's own 1,000,000 default limit, and at PNG's maximum of 2^31 − 1.
    let widest = PNGBuilder.png(width: 0x7FFF_FFFF, height: 1, bitDepth: 8, colorType: .gray, scanlines: [0, 0])
    #expect(decodingError(widest) == .tooLarge(width: 0x7FFF_FFFF, height: 1, maximumPixelCount: limit))
  }

  @Test("invalid IHDR fields are corrupt")
  func invalidHeader() {
    for (width, height, depth, type): (UInt32, UInt32, UInt8, UInt8) in [
      (0, 10, 8, 2), (10, 0, 8, 2), (0x8000_0000, 1, 8, 2), (4, 4, 7, 2), (4, 4, 8, 5), (4, 4, 16, 3),
    ] {
      var bytes = PNGBuilder.signature
      bytes += PNGBuilder.chunk("IHDR", PNGBuilder.ihdr(width: width, height: height, bitDepth: depth, colorType: type))
      bytes += PNGBuilder.chunk("IDAT", PNGBuilder.zlibStored([0, 0, 0, 0]))
      bytes += PNGBuilder.chunk("IEND", [])
      guard case .corrupt(.png, _) = decodingError(Data(bytes)) else {
        let error = String(describing: decodingError(Data(bytes)))
        Issue.record("\(width)×\(height) depth \(depth) type \(type): \(error)")
        continue
      }
    }
  }

  @Test("a bad CRC and a broken zlib stream are corrupt")
  func badChecksums() {
    var badCRC = Array(png)
    badCRC[29] ^= 0xFF  // first byte of the IHDR CRC (8 signature + 8 header + 13 data)
    guard case .corrupt(.png, let crcMessage) = decodingError(Data(badCRC)) else {
      Issue.record("bad CRC: \(String(describing: decodingError(Data(badCRC))))")
      return
    }
    #expect(crcMessage.contains("CRC"))

    var stream = PNGBuilder.zlibStored([UInt8](repeating: 0, count: 4 * 13))  // 4 rows of 4 RGB pixels
    stream[0] = 0x79  // invalid zlib header
    var bytes = PNGBuilder.signature
    bytes += PNGBuilder.chunk("IHDR", PNGBuilder.ihdr(width: 4, height: 4, bitDepth: 8, colorType: 2))
    bytes += PNGBuilder.chunk("IDAT", stream)
    bytes += PNGBuilder.chunk("IEND", [])
    guard case .corrupt(.png, _) = decodingError(Data(bytes)) else {
      Issue.record("\(String(describing: decodingError(Data(bytes))))")
      return
    }
  }

  @Test("a huge size declared in a JPEG frame header is refused before allocating")
  func hugeJPEG() throws {
    var bytes = Array(jpeg)
    let sof = try #require((0..<bytes.count - 1).first { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xC0 })
    bytes.replaceSubrange((sof + 5)..<(sof + 9), with: [0xEA, 0x60, 0xEA, 0x60])  // 60000 × 60000
    #expect(
      decodingError(Data(bytes)) == .tooLarge(width: 60_000, height: 60_000, maximumPixelCount: limit))
    bytes.replaceSubrange((sof + 5)..<(sof + 9), with: [0, 0, 0, 0])
    guard case .corrupt(.jpeg, _) = decodingError(Data(bytes)) else {
      Issue.record("zero size: \(String(describing: decodingError(Data(bytes))))")
      return
    }
  }

  @Test("the pixel limit is a parameter")
  func pixelLimit() {
    #expect(decodingError(png, maximumPixelCount: 383) == .tooLarge(width: 24, height: 16, maximumPixelCount: 383))
    #expect(decodingError(png, maximumPixelCount: 384) == nil)
    #expect(decodingError(jpeg, maximumPixelCount: 383) == .tooLarge(width: 24, height: 16, maximumPixelCount: 383))
    #expect(decodingError(jpeg, maximumPixelCount: 384) == nil)
  }

  @Test("pixel buffers of the wrong size and bad dimensions are refused")
  func invalidBitmaps() {
    #expect(throws: ImageError.byteCountMismatch(expected: 12, actual: 11)) {
      try Bitmap(width: 2, height: 2, channels: 3, pixels: [UInt8](repeating: 0, count: 11))
    }
    #expect(throws: ImageError.invalidDimensions(width: 2, height: 2, channels: 2)) {
      try Bitmap(width: 2, height: 2, channels: 2, pixels: [UInt8](repeating: 0, count: 8))
    }
    #expect(throws: ImageError.invalidDimensions(width: 0, height: 2, channels: 3)) {
      try Bitmap(width: 0, height: 2, channels: 3, pixels: [])
    }
  }

  @Test("errors describe themselves")
  func descriptions() {
    #expect(ImageError.tooLarge(width: 3, height: 4, maximumPixelCount: 5).description.contains("3 × 4"))
    #expect(ImageError.truncated(format: .jpeg, message: "m").description == "truncated JPEG image: m")
  }
}
