import Foundation

extension Bitmap {
  /// A gray bitmap (`channels == 1`) from a single-channel float mask, such as a segmentation
  /// model's `1 × height × width × 1` output.
  ///
  /// Each value is clamped to 0…1 (NaN counts as 0) and stored as `round(value × 255)`.
  ///
  /// - Parameter mask: `width × height` values, row-major from the top left.
  /// - Throws: ``ImageError/invalidDimensions(width:height:channels:)``,
  ///   ``ImageError/byteCountMismatch(expected:actual:)`` when `mask.count` is not
  ///   `width × height`.
  public init(mask: [Float], width: Int, height: Int) throws(ImageError) {
    let count = try Bitmap.byteCount(width: width, height: height, channels: 1)
    guard mask.count == count else { throw .byteCountMismatch(expected: count, actual: mask.count) }
    self.init(unchecked: width, height: height, channels: 1, pixels: mask.map(Bitmap.quantise))
  }

  /// A gray bitmap from the raw bytes of a float32 (little-endian) mask tensor — for instance
  /// `interpreter.output(at: 0).data` — quantised like the `[Float]` initialiser: clamped to 0…1
  /// (NaN as 0), stored as `round(value × 255)`.
  ///
  /// - Throws: ``ImageError/byteCountMismatch(expected:actual:)`` when `mask.count` is not
  ///   `4 × width × height` bytes; ``ImageError/invalidDimensions(width:height:channels:)``.
  public init(mask: Data, width: Int, height: Int) throws(ImageError) {
    let count = try Bitmap.byteCount(width: width, height: height, channels: 1)
    guard mask.count == count * 4 else { throw .byteCountMismatch(expected: count * 4, actual: mask.count) }
    let pixels = mask.withUnsafeBytes { raw in
      (0..<count).map { index in
        let bits = UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: index * 4, as: UInt32.self))
        return Bitmap.quantise(Float(bitPattern: bits))
      }
    }
    self.init(unchecked: width, height: height, channels: 1, pixels: pixels)
  }

  /// `round(clamp(value, 0, 1) × 255)`, with NaN as 0.
  static func quantise(_ value: Float) -> UInt8 {
    guard !value.isNaN else { return 0 }
    return UInt8((min(max(value, 0), 1) * 255).rounded())
  }
}
