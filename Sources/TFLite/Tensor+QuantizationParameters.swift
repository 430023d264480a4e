extension Tensor {
  /// Per-tensor affine quantization: `real = scale * (quantized - zeroPoint)`.
  public struct QuantizationParameters: Sendable, Hashable {
    /// The size of one quantization step in real units.
    public let scale: Float
    /// The quantized value that stands for real zero.
    public let zeroPoint: Int

    /// Parameters with `scale` and `zeroPoint`.
    public init(scale: Float, zeroPoint: Int) {
      self.scale = scale
      self.zeroPoint = zeroPoint
    }
  }
}
