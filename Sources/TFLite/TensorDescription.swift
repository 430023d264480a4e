/// What a model declares about one input or output tensor, without its data: what
/// `hybrid tflite inspect` prints and what a ``Signature`` lists.
public struct TensorDescription: Sendable, Hashable {
  /// The tensor's name in the model (for a signature: the signature's name for it).
  public let name: String
  /// The element type.
  public let dataType: Tensor.DataType
  /// The dimensions (after any resize, once tensors are allocated).
  public let shape: Tensor.Shape
  /// Per-tensor quantization, or nil.
  public let quantizationParameters: Tensor.QuantizationParameters?

  /// A description with the given name, type, shape and quantization.
  public init(name: String, dataType: Tensor.DataType, shape: Tensor.Shape,
              quantizationParameters: Tensor.QuantizationParameters? = nil) {
    self.name = name
    self.dataType = dataType
    self.shape = shape
    self.quantizationParameters = quantizationParameters
  }

  /// The size of the tensor's data in bytes; nil when the shape has unknown dimensions or the
  /// type has no fixed size.
  public var byteCount: Int? {
    shape.elementCount.flatMap { dataType.byteCount(forElementCount: $0) }
  }
}
