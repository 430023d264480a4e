import Foundation
import Testing

@testable import TFLiteImage

@Suite("Masks to PNG")
struct MaskTests {
  private let values: [Float] = [-1, 0, 0.1, 0.5, 0.999, 1, 7, .nan, .infinity, -.infinity, 0.002, 0.998]
  private let quantised: [UInt8] = [0, 0, 26, 128, 255, 255, 255, 0, 255, 0, 1, 254]

  @Test("floats are clamped to 0…1 and rounded to 8-bit gray")
  func quantisation() throws {
    let mask = try Bitmap(mask: values, width: 4, height: 3)
    #expect(mask.channels == 1 && mask.width == 4 && mask.height == 3)
    #expect(mask.pixels == quantised)
  }

  @Test("raw float32 tensor bytes give the same mask")
  func fromData() throws {
    var data = Data()
    for value in values { withUnsafeBytes(of: value.bitPattern.littleEndian) { data.append(contentsOf: $0) } }
    #expect(try Bitmap(mask: data, width: 4, height: 3) == Bitmap(mask: values, width: 4, height: 3))
    // A slice with a non-zero start index works too.
    let padded = Data([1, 2, 3]) + data
    #expect(try Bitmap(mask: padded.dropFirst(3), width: 4, height: 3).pixels == quantised)
  }

  @Test("mask → PNG → decode gives the quantised mask in every channel")
  func pngRoundTrip() throws {
    let width = 64, height = 48
    let floats = (0..<(width * height)).map { Float(($0 * 7919) % 1000) / 999 }
    let mask = try Bitmap(mask: floats, width: width, height: height)
    let png = try mask.pngData()
    #expect(png[25] == 0)  // IHDR colour type: gray
    let decoded = try Bitmap(data: png)
    #expect(decoded == mask.rgb)
  }

  @Test("wrong sizes throw")
  func wrongSizes() {
    #expect(throws: ImageError.byteCountMismatch(expected: 6, actual: 5)) {
      try Bitmap(mask: [Float](repeating: 0, count: 5), width: 3, height: 2)
    }
    #expect(throws: ImageError.byteCountMismatch(expected: 24, actual: 23)) {
      try Bitmap(mask: Data(count: 23), width: 3, height: 2)
    }
    #expect(throws: ImageError.invalidDimensions(width: -1, height: 2, channels: 1)) {
      try Bitmap(mask: [Float](), width: -1, height: 2)
    }
  }
}
