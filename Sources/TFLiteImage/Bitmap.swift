/// An 8-bit image in memory: `width × height` pixels of `channels` samples (1 gray, 3 RGB or
/// 4 RGBA), row by row from the top, with no padding.
///
/// A `Bitmap` is the bridge between image files and TensorFlow Lite tensors:
///
/// ```swift
/// let interpreter = try Interpreter(modelPath: "selfie_segmentation.tflite")
/// try interpreter.allocateTensors()
/// let photo = try Bitmap(contentsOf: URL(filePath: "person.jpg"))       // PNG or JPEG → RGB
/// let input = try photo.resized(width: 256, height: 256)
///   .tensorData(as: .float32(range: .zeroToOne))                        // 1×256×256×3 float32
/// try interpreter.copy(input, toInputAt: 0)
/// try interpreter.invoke()
/// let mask = try Bitmap(mask: try interpreter.output(at: 0).data, width: 256, height: 256)
/// try mask.write(to: URL(filePath: "mask.png"))
/// ```
///
/// Decoding always yields RGB (`channels == 3`); masks are gray (`channels == 1`).
public struct Bitmap: Sendable, Hashable {
  /// Width in pixels (≥ 1).
  public let width: Int
  /// Height in pixels (≥ 1).
  public let height: Int
  /// Samples per pixel: 1 (gray), 3 (RGB) or 4 (RGBA).
  public let channels: Int
  /// `width × height × channels` samples, row-major from the top-left pixel, channels interleaved.
  public let pixels: [UInt8]

  /// The most pixels a decoded or resized image may have unless a call says otherwise:
  /// 2^26 = 67,108,864 (64 Mi pixels, e.g. 8192 × 8192, 192 MiB as RGB). Checked against the
  /// size an image file declares, before any memory is allocated for it.
  public static let defaultMaximumPixelCount = 1 << 26

  /// Wraps existing pixels, checking that they fit the dimensions.
  ///
  /// - Throws: ``ImageError/invalidDimensions(width:height:channels:)`` for a width or height
  ///   below 1 or a channel count other than 1, 3 or 4;
  ///   ``ImageError/byteCountMismatch(expected:actual:)`` when `pixels.count` is not
  ///   `width × height × channels`.
  public init(width: Int, height: Int, channels: Int, pixels: [UInt8]) throws(ImageError) {
    let expected = try Bitmap.byteCount(width: width, height: height, channels: channels)
    guard pixels.count == expected else { throw .byteCountMismatch(expected: expected, actual: pixels.count) }
    self.init(unchecked: width, height: height, channels: channels, pixels: pixels)
  }

  init(unchecked width: Int, height: Int, channels: Int, pixels: [UInt8]) {
    self.width = width
    self.height = height
    self.channels = channels
    self.pixels = pixels
  }

  /// The number of pixels, `width × height`.
  public var pixelCount: Int { width * height }

  /// The sample of `channel` at column `x`, row `y` (0-based from the top left).
  public subscript(x: Int, y: Int, channel: Int) -> UInt8 {
    precondition(x >= 0 && x < width && y >= 0 && y < height && channel >= 0 && channel < channels,
                 "Bitmap index (\(x), \(y), \(channel)) out of range")
    return pixels[(y * width + x) * channels + channel]
  }

  /// `width × height × channels`, or the error that ``init(width:height:channels:pixels:)`` throws
  /// for dimensions it does not accept (including products that overflow `Int`).
  static func byteCount(width: Int, height: Int, channels: Int) throws(ImageError) -> Int {
    guard width >= 1, height >= 1, [1, 3, 4].contains(channels) else {
      throw .invalidDimensions(width: width, height: height, channels: channels)
    }
    let (count, overflow) = width.multipliedReportingOverflow(by: height)
    let (bytes, overflow2) = count.multipliedReportingOverflow(by: channels * 4)  // room for float32 work
    guard !overflow, !overflow2 else { throw .invalidDimensions(width: width, height: height, channels: channels) }
    return bytes / 4
  }
}
