import CImageCodecs
import Foundation

@testable import TFLiteImage

/// Generated test images and small helpers shared by the suites.
enum TestImages {
  /// A smooth gradient with `channels` channels: R runs along x, G along y, B along the diagonal,
  /// alpha (if any) a checker of two values; gray is the R pattern.
  static func gradient(width: Int, height: Int, channels: Int) -> Bitmap {
    var pixels: [UInt8] = []
    pixels.reserveCapacity(width * height * channels)
    for y in 0..<height {
      for x in 0..<width {
        let r = UInt8(x * 255 / max(width - 1, 1))
        let g = UInt8(y * 255 / max(height - 1, 1))
        let b = UInt8((x + y) * 255 / max(width + height - 2, 1))
        let a: UInt8 = (x / 4 + y / 4) % 2 == 0 ? 255 : 64
        switch channels {
        case 1: pixels.append(r)
        case 3: pixels += [r, g, b]
        default: pixels += [r, g, b, a]
        }
      }
    }
    return try! Bitmap(width: width, height: height, channels: channels, pixels: pixels)
  }

  /// JPEG bytes straight from the C encoder (components 1 gray, 3 RGB, 4 Adobe CMYK).
  static func jpeg(
    pixels: [UInt8], width: Int, height: Int, components: Int, quality: Int = 95, progressive: Bool = false
  ) -> Data {
    var buffer = cimg_buffer()
    let status = pixels.withUnsafeBufferPointer {
      cimg_jpeg_encode($0.baseAddress, UInt32(width), UInt32(height), UInt32(components), Int32(quality),
                       progressive ? 1 : 0, &buffer)
    }
    defer { cimg_free(buffer.bytes) }
    precondition(status == CIMG_OK, "test JPEG encoding failed: \(status)")
    return Data(bytes: buffer.bytes!, count: buffer.size)
  }

  /// The largest absolute difference and the mean absolute difference of two equal-sized bitmaps.
  static func difference(_ a: Bitmap, _ b: Bitmap) -> (max: Int, mean: Double) {
    precondition(a.pixels.count == b.pixels.count)
    var maximum = 0, total = 0
    for (x, y) in zip(a.pixels, b.pixels) {
      let d = abs(Int(x) - Int(y))
      maximum = max(maximum, d)
      total += d
    }
    return (maximum, Double(total) / Double(a.pixels.count))
  }

  /// A fresh temporary directory, removed by the caller.
  static func temporaryDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("tfliteimage-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
  }
}
