import Foundation
import Testing

@testable import TFLiteImage

@Suite("Tensor bytes")
struct TensorDataTests {
  /// 2 × 2 RGB, pixels in reading order: (0,10,20) (30,40,50) / (60,70,80) (255,127,128).
  private let image = try! Bitmap(
    width: 2, height: 2, channels: 3, pixels: [0, 10, 20, 30, 40, 50, 60, 70, 80, 255, 127, 128])

  private func floats(_ data: Data) -> [Float] {
    stride(from: 0, to: data.count, by: 4).map { offset in
      let bits = data[offset..<offset + 4].enumerated().reduce(UInt32(0)) { $0 | UInt32($1.element) << (8 * $1.offset) }
      return Float(bitPattern: bits)
    }
  }

  @Test("uint8 is NHWC RGB, rows from the top")
  func uint8Layout() {
    #expect(image.tensorShape == [1, 2, 2, 3])
    #expect(Array(image.tensorData(as: .uint8)) == image.pixels)
  }

  @Test("float32 in 0…1 is v / 255, little-endian")
  func zeroToOne() {
    let data = image.tensorData(as: .float32(range: .zeroToOne))
    #expect(data.count == 12 * 4)
    #expect(Array(data.prefix(8)) == [0, 0, 0, 0, 0xA1, 0xA0, 0x20, 0x3D])  // 0.0, 10/255 = 0x3D20A0A1
    let values = floats(data)
    #expect(values == image.pixels.map { Float($0) / 255 })
    #expect(values[9] == 1.0)
  }

  @Test("float32 in −1…1 is (v − 127.5) / 127.5")
  func minusOneToOne() {
    let values = floats(image.tensorData(as: .float32(range: .minusOneToOne)))
    #expect(values[0] == -1.0)
    #expect(values[9] == 1.0)
    #expect(values[10] == Float(-0.5) / Float(127.5))
    #expect(values[11] == Float(0.5) / Float(127.5))
    #expect(values == image.pixels.map { (Float($0) - 127.5) / 127.5 })
  }

  @Test("int8 is v − 128")
  func int8() {
    let values = image.tensorData(as: .int8).map { Int8(bitPattern: $0) }
    #expect(values == image.pixels.map { Int8(Int($0) - 128) })
    #expect(TensorPixelFormat.int8.bytesPerSample == 1)
    #expect(TensorPixelFormat.float32(range: .zeroToOne).bytesPerSample == 4)
  }

  @Test("gray and RGBA bitmaps are written as RGB")
  func conversions() throws {
    let gray = try Bitmap(width: 2, height: 1, channels: 1, pixels: [5, 250])
    #expect(Array(gray.tensorData(as: .uint8)) == [5, 5, 5, 250, 250, 250])
    let rgba = try Bitmap(width: 1, height: 2, channels: 4, pixels: [1, 2, 3, 4, 5, 6, 7, 8])
    #expect(Array(rgba.tensorData(as: .uint8)) == [1, 2, 3, 5, 6, 7])
    #expect(rgba.tensorShape == [1, 2, 1, 3])
  }

  @Test("decode → resize → tensor: the selfie-segmentation input size")
  func pipeline() throws {
    let photo = try Bitmap(data: TestImages.gradient(width: 640, height: 480, channels: 3).jpegData())
    let input = try photo.resized(width: 256, height: 256).tensorData(as: .float32(range: .zeroToOne))
    #expect(input.count == 256 * 256 * 3 * 4)
    #expect(floats(input).allSatisfy { $0 >= 0 && $0 <= 1 })
  }
}
