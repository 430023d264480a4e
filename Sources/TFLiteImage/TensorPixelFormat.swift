/// How ``Bitmap/tensorData(as:)`` writes each 8-bit RGB sample `v` into an input tensor.
public enum TensorPixelFormat: Sendable, Hashable {
  /// 32-bit floats, little-endian, normalised into `range`.
  case float32(range: NormalizationRange)
  /// The samples as they are, one byte each (quantised models with a `uint8` input).
  case uint8
  /// `v − 128` as a signed byte (quantised models with an `int8` input whose zero point is −128,
  /// i.e. the uint8 representation shifted).
  case int8

  /// The float range a 0…255 sample is mapped into.
  public enum NormalizationRange: Sendable, Hashable {
    /// `v / 255`: 0 → 0.0, 255 → 1.0.
    case zeroToOne
    /// `(v − 127.5) / 127.5`: 0 → −1.0, 255 → 1.0 (MobileNet-style inputs).
    case minusOneToOne
  }

  /// Bytes per sample in the tensor.
  public var bytesPerSample: Int {
    switch self {
    case .float32: 4
    case .uint8, .int8: 1
    }
  }
}
