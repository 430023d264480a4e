import Foundation

extension Bitmap {
  /// The tensor shape ``tensorData(as:)`` fills: `[1, height, width, 3]` (NHWC, RGB).
  public var tensorShape: [Int] { [1, height, width, 3] }

  /// The image as the bytes of an NHWC input tensor of shape ``tensorShape``: rows from the top,
  /// pixels from the left, samples in R, G, B order (gray is replicated, alpha dropped — see
  /// ``rgb``), each written as `format` says; float32 values are little-endian.
  ///
  /// Resize first (``resized(width:height:maximumPixelCount:)``) to the model's input size, then
  /// hand the result to `Interpreter.copy(_:toInputAt:)`.
  public func tensorData(as format: TensorPixelFormat) -> Data {
    let source = rgb.pixels
    switch format {
    case .uint8:
      return Data(source)
    case .int8:
      return Data(source.map { $0 ^ 0x80 })  // v − 128 in two's complement
    case .float32(let range):
      let table: [UInt32] = (0...255).map { value in
        let normalised: Float =
          switch range {
          case .zeroToOne: Float(value) / 255
          case .minusOneToOne: (Float(value) - 127.5) / 127.5
          }
        return normalised.bitPattern.littleEndian
      }
      var data = Data(count: source.count * 4)
      data.withUnsafeMutableBytes { raw in
        let words = raw.bindMemory(to: UInt32.self)
        for index in source.indices { words[index] = table[Int(source[index])] }
      }
      return data
    }
  }
}
