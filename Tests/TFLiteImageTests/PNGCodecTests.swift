import Foundation
import Testing

@testable import TFLiteImage

@Suite("PNG decoding and encoding")
struct PNGCodecTests {
  @Test("RGB gradient: encode → decode gives the same pixels")
  func rgbRoundTrip() throws {
    let image = TestImages.gradient(width: 37, height: 23, channels: 3)
    let png = try image.pngData()
    #expect(ImageFormat(sniffing: png) == .png)
    let decoded = try Bitmap(data: png)
    #expect(decoded == image)
  }

  @Test("gray gradient decodes to RGB with equal channels")
  func grayRoundTrip() throws {
    let gray = TestImages.gradient(width: 20, height: 9, channels: 1)
    let decoded = try Bitmap(data: gray.pngData())
    #expect(decoded.channels == 3)
    #expect(decoded == gray.rgb)
    #expect(decoded[5, 3, 0] == gray[5, 3, 0] && decoded[5, 3, 2] == gray[5, 3, 0])
  }

  @Test("RGBA decodes to RGB with the alpha dropped, not composited")
  func rgbaRoundTrip() throws {
    let rgba = TestImages.gradient(width: 16, height: 16, channels: 4)
    #expect(rgba.pixels.contains(64))
    let decoded = try Bitmap(data: rgba.pngData())
    #expect(decoded == rgba.rgb)
  }

  @Test("palette PNG with tRNS expands to RGB")
  func palette() throws {
    let png = PNGBuilder.png(
      width: 3, height: 1, bitDepth: 8, colorType: .palette,
      scanlines: PNGBuilder.unfiltered(rows: [[2, 0, 1]]),
      chunksBeforeData: [("PLTE", [255, 0, 0, 0, 255, 0, 0, 0, 255]), ("tRNS", [0, 128])])
    let decoded = try Bitmap(data: png)
    #expect(decoded.pixels == [0, 0, 255, 255, 0, 0, 0, 255, 0])
  }

  @Test("1-bit gray expands to 0 / 255")
  func oneBitGray() throws {
    let png = PNGBuilder.png(
      width: 8, height: 1, bitDepth: 1, colorType: .gray, scanlines: PNGBuilder.unfiltered(rows: [[0b1011_0001]]))
    let decoded = try Bitmap(data: png)
    let expected: [UInt8] = [255, 0, 255, 255, 0, 0, 0, 255]
    #expect(decoded.pixels == expected.flatMap { [$0, $0, $0] })
  }

  @Test("gray + alpha and gray with tRNS become RGB")
  func grayAlpha() throws {
    let withAlpha = PNGBuilder.png(
      width: 2, height: 1, bitDepth: 8, colorType: .grayAlpha,
      scanlines: PNGBuilder.unfiltered(rows: [[10, 200, 250, 0]]))
    #expect(try Bitmap(data: withAlpha).pixels == [10, 10, 10, 250, 250, 250])
    let withTRNS = PNGBuilder.png(
      width: 2, height: 1, bitDepth: 8, colorType: .gray,
      scanlines: PNGBuilder.unfiltered(rows: [[7, 9]]), chunksBeforeData: [("tRNS", [0, 7])])
    #expect(try Bitmap(data: withTRNS).pixels == [7, 7, 7, 9, 9, 9])
  }

  @Test("16-bit samples are scaled to 8 bits with rounding")
  func sixteenBit() throws {
    let samples: [UInt16] = [0x0000, 0xFFFF, 0x8080, 0x1234, 0x7F7F, 0xFF00]
    let row = samples.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
    let png = PNGBuilder.png(
      width: 2, height: 1, bitDepth: 16, colorType: .rgb, scanlines: PNGBuilder.unfiltered(rows: [row]))
    let expected = samples.map { UInt8((Double($0) * 255 / 65535).rounded()) }
    #expect(try Bitmap(data: png).pixels == expected)
  }

  @Test("Adam7-interlaced PNG decodes to the same pixels as a plain one")
  func interlaced() throws {
    let image = TestImages.gradient(width: 11, height: 9, channels: 3)
    let png = PNGBuilder.png(
      width: 11, height: 9, bitDepth: 8, colorType: .rgb, interlaced: true,
      scanlines: PNGBuilder.adam7(pixels: image.pixels, width: 11, height: 9, bytesPerPixel: 3))
    #expect(try Bitmap(data: png) == image)
  }

  @Test("the crafted-PNG builder agrees with libpng on a plain RGB image")
  func builderSanity() throws {
    let image = TestImages.gradient(width: 5, height: 4, channels: 3)
    let rows = (0..<4).map { Array(image.pixels[($0 * 15)..<($0 * 15 + 15)]) }
    let png = PNGBuilder.png(
      width: 5, height: 4, bitDepth: 8, colorType: .rgb, scanlines: PNGBuilder.unfiltered(rows: rows))
    #expect(try Bitmap(data: png) == image)
  }

  @Test("1 × 1 images and a 1-pixel-wide column round-trip")
  func tinyImages() throws {
    let dot = try Bitmap(width: 1, height: 1, channels: 3, pixels: [1, 2, 3])
    #expect(try Bitmap(data: dot.pngData()) == dot)
    let column = TestImages.gradient(width: 1, height: 300, channels: 3)
    #expect(try Bitmap(data: column.pngData()) == column)
  }

  @Test("decoding is safe from many tasks at once")
  func concurrentDecoding() async throws {
    let image = TestImages.gradient(width: 64, height: 64, channels: 3)
    let png = try image.pngData()
    let jpeg = try image.jpegData()
    let results = try await withThrowingTaskGroup(of: Bool.self) { group in
      for index in 0..<16 {
        group.addTask {
          index.isMultiple(of: 2) ? try Bitmap(data: png) == image : try Bitmap(data: jpeg).width == 64
        }
      }
      return try await group.reduce(into: [Bool]()) { $0.append($1) }
    }
    #expect(results.count == 16 && results.allSatisfy { $0 })
  }

  @Test("the libraries' versions are reported")
  func versions() {
    #expect(ImageCodecLibraries.png.hasPrefix("1.6."))
    #expect(ImageCodecLibraries.jpeg.contains("libjpeg API"))
  }
}
