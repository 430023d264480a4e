extension Tensor {
  /// The element type of a tensor (LiteRT's element types, which are TensorFlow Lite's).
  public enum DataType: Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// One byte, 0 or 1.
    case bool
    /// 8-bit unsigned integer.
    case uInt8
    /// 8-bit signed integer.
    case int8
    /// 16-bit signed integer.
    case int16
    /// 16-bit unsigned integer.
    case uInt16
    /// 32-bit signed integer.
    case int32
    /// 32-bit unsigned integer.
    case uInt32
    /// 64-bit signed integer.
    case int64
    /// 64-bit unsigned integer.
    case uInt64
    /// IEEE 754 half precision.
    case float16
    /// bfloat16 (the top half of a float32).
    case bFloat16
    /// IEEE 754 single precision.
    case float32
    /// IEEE 754 double precision.
    case float64
    /// Two float32: real, imaginary.
    case complex64
    /// Two float64: real, imaginary.
    case complex128
    /// 2-bit signed integer, four to a byte.
    case int2
    /// 4-bit signed integer, two to a byte.
    case int4
    /// 4-bit unsigned integer, two to a byte.
    case uInt4
    /// 8-bit float, 4 exponent and 3 mantissa bits, finite.
    case float8E4M3FN
    /// 8-bit float, 5 exponent and 2 mantissa bits.
    case float8E5M2
    /// Variable-length strings (TFLite's packed string format).
    case string
    /// A handle to a resource such as a variable.
    case resource
    /// A variant (e.g. a tensor list).
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
}
