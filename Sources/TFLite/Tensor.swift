import Foundation

/// An input or output tensor of an ``Interpreter``: its description and, for inputs after a copy
/// and outputs after an invoke, its bytes.
///
/// A value snapshot: changing the interpreter later does not change a `Tensor` you hold.
public struct Tensor: Sendable, Hashable {
  /// The tensor's name in the model.
  public let name: String
  /// The type of each element.
  public let dataType: DataType
  /// The dimensions.
  public let shape: Shape
  /// The raw bytes, in the model's element type and row-major order (little-endian).
  public let data: Data
  /// Per-tensor quantization (`real = scale * (quantized - zeroPoint)`), or nil when the tensor
  /// is not quantized per tensor.
  public let quantizationParameters: QuantizationParameters?

  public init(name: String, dataType: DataType, shape: Shape, data: Data,
              quantizationParameters: QuantizationParameters? = nil) {
    self.name = name
    self.dataType = dataType
    self.shape = shape
    self.data = data
    self.quantizationParameters = quantizationParameters
  }
}

extension Tensor {
  /// The dimensions of a tensor.
  public struct Shape: Sendable, Hashable, ExpressibleByArrayLiteral, CustomStringConvertible {
    /// The size of each dimension, outermost first.
    public let dimensions: [Int]

    /// The number of dimensions.
    public var rank: Int { dimensions.count }

    /// The number of elements (1 for a scalar); nil when a dimension is unknown (-1).
    public var elementCount: Int? {
      var count = 1
      for dimension in dimensions {
        guard dimension >= 0 else { return nil }
        let (product, overflow) = count.multipliedReportingOverflow(by: dimension)
        guard !overflow else { return nil }
        count = product
      }
      return count
    }

    public init(_ dimensions: [Int]) { self.dimensions = dimensions }
    public init(_ dimensions: Int...) { self.dimensions = dimensions }
    public init(arrayLiteral dimensions: Int...) { self.dimensions = dimensions }

    public var description: String {
      "[" + dimensions.map(String.init).joined(separator: ", ") + "]"
    }
  }

  /// The element type of a tensor (LiteRT's element types, which are TensorFlow Lite's).
  public enum DataType: Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case bool
    case uInt8
    case int8
    case int16
    case uInt16
    case int32
    case uInt32
    case int64
    case uInt64
    case float16
    case bFloat16
    case float32
    case float64
    case complex64
    case complex128
    case int2
    case int4
    case uInt4
    case float8E4M3FN
    case float8E5M2
    case string
    case resource
    case variant

    /// The size of one element in bytes; nil for types that are not a whole number of bytes
    /// (``int2``, ``int4``, ``uInt4``) or have no fixed size (``string``, ``resource``, ``variant``).
    public var byteCount: Int? {
      switch self {
      case .bool, .uInt8, .int8, .float8E4M3FN, .float8E5M2: 1
      case .int16, .uInt16, .float16, .bFloat16: 2
      case .int32, .uInt32, .float32: 4
      case .int64, .uInt64, .float64, .complex64: 8
      case .complex128: 16
      case .int2, .int4, .uInt4, .string, .resource, .variant: nil
      }
    }

    /// The name NumPy uses for the type (`float32`, `int8`, …), as `hybrid tflite inspect` prints it.
    public var description: String {
      switch self {
      case .bool: "bool"
      case .uInt8: "uint8"
      case .int8: "int8"
      case .int16: "int16"
      case .uInt16: "uint16"
      case .int32: "int32"
      case .uInt32: "uint32"
      case .int64: "int64"
      case .uInt64: "uint64"
      case .float16: "float16"
      case .bFloat16: "bfloat16"
      case .float32: "float32"
      case .float64: "float64"
      case .complex64: "complex64"
      case .complex128: "complex128"
      case .int2: "int2"
      case .int4: "int4"
      case .uInt4: "uint4"
      case .float8E4M3FN: "float8_e4m3fn"
      case .float8E5M2: "float8_e5m2"
      case .string: "string"
      case .resource: "resource"
      case .variant: "variant"
      }
    }

    /// The type for a LiteRT element type number (TfLiteType), or nil for none/unknown.
    init?(liteRtElementType value: Int32) {
      switch value {
      case 1: self = .float32
      case 2: self = .int32
      case 3: self = .uInt8
      case 4: self = .int64
      case 5: self = .string
      case 6: self = .bool
      case 7: self = .int16
      case 8: self = .complex64
      case 9: self = .int8
      case 10: self = .float16
      case 11: self = .float64
      case 12: self = .complex128
      case 13: self = .uInt64
      case 14: self = .resource
      case 15: self = .variant
      case 16: self = .uInt32
      case 17: self = .uInt16
      case 18: self = .int4
      case 19: self = .bFloat16
      case 20: self = .int2
      case 21: self = .uInt4
      case 22: self = .float8E4M3FN
      case 23: self = .float8E5M2
      default: return nil
      }
    }

    /// The type for a TFLite schema `TensorType` number (as stored in .tflite files).
    init?(schemaTensorType value: UInt8) {
      switch value {
      case 0: self = .float32
      case 1: self = .float16
      case 2: self = .int32
      case 3: self = .uInt8
      case 4: self = .int64
      case 5: self = .string
      case 6: self = .bool
      case 7: self = .int16
      case 8: self = .complex64
      case 9: self = .int8
      case 10: self = .float64
      case 11: self = .complex128
      case 12: self = .uInt64
      case 13: self = .resource
      case 14: self = .variant
      case 15: self = .uInt32
      case 16: self = .uInt16
      case 17: self = .int4
      case 18: self = .bFloat16
      case 19: self = .int2
      case 20: self = .uInt4
      case 21: self = .float8E4M3FN
      case 22: self = .float8E5M2
      default: return nil
      }
    }

    /// Bytes for `elementCount` elements (sub-byte types packed, rounded up); nil when unknown
    /// or on overflow.
    func byteCount(forElementCount elementCount: Int) -> Int? {
      if let size = byteCount {
        let (bytes, overflow) = elementCount.multipliedReportingOverflow(by: size)
        return overflow ? nil : bytes
      }
      switch self {
      case .int4, .uInt4: return elementCount / 2 + elementCount % 2
      case .int2: return (elementCount + 3) / 4
      default: return nil
      }
    }
  }

  /// Per-tensor affine quantization: `real = scale * (quantized - zeroPoint)`.
  public struct QuantizationParameters: Sendable, Hashable {
    public let scale: Float
    public let zeroPoint: Int

    public init(scale: Float, zeroPoint: Int) {
      self.scale = scale
      self.zeroPoint = zeroPoint
    }
  }
}
