import Foundation
import Testing

@testable import TFLiteImage

@Suite("JPEG decoding and encoding")
struct JPEGCodecTests {
  @Test("RGB gradient: encode → decode stays within JPEG tolerance")
  func rgbRoundTrip() throws {
    let image = TestImages.gradient(width: 64, height: 48, channels: 3)
    let jpeg = try image.jpegData(quality: 95)
    #expect(ImageFormat(sniffing: jpeg) == .jpeg)
    let decoded = try Bitmap(data: jpeg)
    #expect(decoded.width == 64 && decoded.height == 48 && decoded.channels == 3)
    let difference = TestImages.difference(decoded, image)
    #expect(difference.mean < 2 && difference.max <= 16, "difference \(difference)")
  }

  @Test("a grayscale JPEG decodes to RGB with equal channels")
  func grayscale() throws {
    let gray = TestImages.gradient(width: 40, height: 30, channels: 1)
    let jpeg = try gray.jpegData(quality: 95)
    let decoded = try Bitmap(data: jpeg)
    #expect(decoded.channels == 3)
    for index in 0..<decoded.pixelCount {
      #expect(decoded.pixels[index * 3] == decoded.pixels[index * 3 + 1])
      #expect(decoded.pixels[index * 3] == decoded.pixels[index * 3 + 2])
    }
    let difference = TestImages.difference(decoded, gray.rgb)
    #expect(difference.mean < 1.5 && difference.max <= 8, "difference \(difference)")
  }

  @Test("a progressive JPEG decodes to the same pixels as the baseline one")
  func progressive() throws {
    let image = TestImages.gradient(width: 50, height: 30, channels: 3)
    let baseline = TestImages.jpeg(pixels: image.pixels, width: 50, height: 30, components: 3)
    let progressive = TestImages.jpeg(pixels: image.pixels, width: 50, height: 30, components: 3, progressive: true)
    #expect(baseline != progressive)
    #expect(try Bitmap(data: progressive) == Bitmap(data: baseline))
  }

  @Test("an Adobe CMYK JPEG is converted to RGB")
  func cmyk() throws {
    // Adobe's inverted CMYK: 255 means no ink. Left half (255, 0, 255, 255) is magenta ink only
    // → (255, 0, 255); right half (0, 255, 255, 255) is cyan ink only → (0, 255, 255).
    let width = 32, height = 16
    var pixels: [UInt8] = []
    for _ in 0..<height {
      for x in 0..<width { pixels += x < width / 2 ? [255, 0, 255, 255] : [0, 255, 255, 255] }
    }
    let jpeg = TestImages.jpeg(pixels: pixels, width: width, height: height, components: 4, quality: 100)
    let decoded = try Bitmap(data: jpeg)
    let left = [decoded[4, 8, 0], decoded[4, 8, 1], decoded[4, 8, 2]].map(Int.init)
    let right = [decoded[28, 8, 0], decoded[28, 8, 1], decoded[28, 8, 2]].map(Int.init)
    #expect(zip(left, [255, 0, 255]).allSatisfy { abs($0 - $1) <= 3 }, "left \(left)")
    #expect(zip(right, [0, 255, 255]).allSatisfy { abs($0 - $1) <= 3 }, "right \(right)")
  }

  @Test("jpegData drops alpha and clamps the quality")
  func encodingOptions() throws {
    let rgba = TestImages.gradient(width: 24, height: 24, channels: 4)
    let decoded = try Bitmap(data: rgba.jpegData(quality: 500))
    #expect(TestImages.difference(decoded, rgba.rgb).mean < 2)
    let small = try rgba.jpegData(quality: -3)
    #expect(small.count < (try rgba.jpegData(quality: 100)).count)
  }
}
