/// A named entry point of a model (a TFLite `SignatureDef`): a subgraph with named inputs and
/// outputs, run with ``Interpreter/invoke(signature:inputs:)``.
public struct Signature: Sendable, Hashable {
  /// The signature key (e.g. `serving_default`).
  public let key: String
  /// The inputs, by their signature names, in the subgraph's order.
  public let inputs: [TensorDescription]
  /// The outputs, by their signature names, in the subgraph's order.
  public let outputs: [TensorDescription]

  /// A signature with the given key, inputs and outputs.
  public init(key: String, inputs: [TensorDescription], outputs: [TensorDescription]) {
    self.key = key
    self.inputs = inputs
    self.outputs = outputs
  }
}
