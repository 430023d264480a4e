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

  /// A tensor with the given description and bytes.
  public init(name: String, dataType: DataType, shape: Shape, data: Data,
              quantizationParameters: QuantizationParameters? = nil) {
    self.name = name
    self.dataType = dataType
    self.shape = shape
    self.data = data
    self.quantizationParameters = quantizationParameters
  }
}
