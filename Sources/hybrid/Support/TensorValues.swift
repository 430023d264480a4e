import Foundation
import TFLite

/// Reads a tensor's first values as numbers, for printing.
enum TensorValues {
  static func first(_ count: Int, of tensor: Tensor) -> [Double] {
    guard let size = tensor.dataType.byteCount, size > 0 else { return [] }
    let available = min(count, tensor.data.count / size)
    return tensor.data.withUnsafeBytes { raw in
      (0..<available).compactMap { index in
        let offset = index * size
        switch tensor.dataType {
        case .float32: return Double(Float(bitPattern: raw.loadUnaligned(fromByteOffset: offset, as: UInt32.self)))
        case .float64: return Double(bitPattern: raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
        case .int8: return Double(raw.loadUnaligned(fromByteOffset: offset, as: Int8.self))
        case .uInt8, .bool: return Double(raw.loadUnaligned(fromByteOffset: offset, as: UInt8.self))
        case .int16: return Double(raw.loadUnaligned(fromByteOffset: offset, as: Int16.self))
        case .uInt16: return Double(raw.loadUnaligned(fromByteOffset: offset, as: UInt16.self))
        case .int32: return Double(raw.loadUnaligned(fromByteOffset: offset, as: Int32.self))
        case .uInt32: return Double(raw.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
        case .int64: return Double(raw.loadUnaligned(fromByteOffset: offset, as: Int64.self))
        case .uInt64: return Double(raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
        default: return nil
        }
      }
    }
  }
}
