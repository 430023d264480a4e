import Testing

@testable import TFLiteImage

@Suite("Bilinear resizing")
struct ResizingTests {
  private func gray(_ width: Int, _ height: Int, _ pixels: [UInt8]) throws -> Bitmap {
    try Bitmap(width: width, height: height, channels: 1, pixels: pixels)
  }

  @Test("upscaling 2 → 4 samples at pixel centres and clamps at the edges")
  func upscale() throws {
    // x' = (x + 0.5) · 0.5 − 0.5 → −0.25 (clamped to 0), 0.25, 0.75, 1.25 (clamped to 1)
    #expect(try gray(2, 1, [0, 100]).resized(width: 4, height: 1).pixels == [0, 25, 75, 100])
  }

  @Test("downscaling 4 → 2 averages neighbouring pairs")
  func downscale() throws {
    // x' = (x + 0.5) · 2 − 0.5 → 0.5, 2.5
    #expect(try gray(4, 1, [0, 10, 20, 30]).resized(width: 2, height: 1).pixels == [5, 25])
  }

  @Test("2 × 2 → 3 × 3 interpolates in both directions, rounding half away from zero")
  func twoDimensions() throws {
    // positions (x + 0.5) · 2/3 − 0.5: −1/6 → 0, 0.5, 7/6 → 1
    let result = try gray(2, 2, [0, 90, 30, 120]).resized(width: 3, height: 3)
    #expect(result.pixels == [0, 45, 90, 15, 60, 105, 30, 75, 120])
  }

  @Test("multi-channel images keep their channels and interpolate each one")
  func channels() throws {
    let rgb = try Bitmap(width: 2, height: 1, channels: 3, pixels: [0, 200, 10, 100, 0, 11])
    let result = try rgb.resized(width: 4, height: 1)
    #expect(result.channels == 3)
    #expect(result.pixels == [0, 200, 10, 25, 150, 10, 75, 50, 11, 100, 0, 11])
  }

  @Test("same size returns the image; a constant image stays constant at any size")
  func identities() throws {
    let image = TestImages.gradient(width: 13, height: 7, channels: 3)
    #expect(try image.resized(width: 13, height: 7) == image)
    let flat = try Bitmap(width: 5, height: 3, channels: 4, pixels: Array(repeating: 77, count: 60))
    let big = try flat.resized(width: 17, height: 11)
    #expect(big.width == 17 && big.height == 11 && big.pixels.allSatisfy { $0 == 77 })
    let small = try flat.resized(width: 1, height: 1)
    #expect(small.pixels == [77, 77, 77, 77])
  }

  @Test("a 1 × 1 source fills the whole output")
  func singlePixelSource() throws {
    let dot = try Bitmap(width: 1, height: 1, channels: 3, pixels: [9, 8, 7])
    let result = try dot.resized(width: 3, height: 2)
    #expect(result.pixels == Array(repeating: [9, 8, 7], count: 6).flatMap { $0 })
  }

  @Test("invalid and oversized targets throw")
  func invalidTargets() throws {
    let image = TestImages.gradient(width: 4, height: 4, channels: 3)
    #expect(throws: ImageError.invalidDimensions(width: 0, height: 4, channels: 3)) {
      try image.resized(width: 0, height: 4)
    }
    #expect(throws: ImageError.invalidDimensions(width: Int.max, height: Int.max, channels: 3)) {
      try image.resized(width: Int.max, height: Int.max)
    }
    #expect(throws: ImageError.tooLarge(width: 100, height: 100, maximumPixelCount: 9_999)) {
      try image.resized(width: 100, height: 100, maximumPixelCount: 9_999)
    }
  }
}
