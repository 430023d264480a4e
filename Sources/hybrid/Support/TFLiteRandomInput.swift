import Foundation
import TFLite

/// Reproducible pseudo-random input tensors for `hybrid tflite run --random SEED` (SplitMix64):
/// floats uniform in [0, 1), integers uniform over their type, booleans 0 or 1.
struct TFLiteRandomInput {
  private var state: UInt64

  init(seed: UInt64) { state = seed }

  private mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var value = state
    value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
    value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
    return value ^ (value >> 31)
  }

  /// Bytes for `tensor`'s type and shape, or nil for a type without a fixed size.
  mutating func data(for tensor: Tensor) -> Data? {
    guard let elements = tensor.shape.elementCount, let size = tensor.dataType.byteCount else { return nil }
    var bytes = [UInt8]()
    bytes.reserveCapacity(elements * size)
    for _ in 0..<elements {
      let bits = next()
      switch tensor.dataType {
      case .float32:
        let value = Float(bits >> 40) / Float(1 << 24)
        withUnsafeBytes(of: value.bitPattern.littleEndian) { bytes.append(contentsOf: $0) }
      case .float64:
        let value = Double(bits >> 11) / Double(1 << 53)
        withUnsafeBytes(of: value.bitPattern.littleEndian) { bytes.append(contentsOf: $0) }
      case .float16, .bFloat16:
        // A value in [0, 1): float16 0x0000...0x3BFF; bfloat16 0x0000...0x3F7F.
        let top: UInt64 = tensor.dataType == .float16 ? 0x3C00 : 0x3F80
        withUnsafeBytes(of: UInt16(bits % top).littleEndian) { bytes.append(contentsOf: $0) }
      case .bool:
        bytes.append(UInt8(bits & 1))
      default:
        withUnsafeBytes(of: bits.littleEndian) { bytes.append(contentsOf: $0.prefix(size)) }
      }
    }
    return Data(bytes)
  }
}
