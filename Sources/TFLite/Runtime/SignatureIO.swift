import CLiteRT

/// The input and output buffers of one signature of a ``CompiledModel``: host memory owned here,
/// wrapped as LiteRT tensor buffers, sized for the tensors' current shapes.
final class SignatureIO {
  /// One tensor's buffer.
  struct Slot {
    let info: LoadedModel.TensorInfo
    /// The current shape (after resizes).
    let shape: Tensor.Shape
    /// The bytes the tensor's data takes (the buffer may be larger).
    let byteCount: Int
    let memory: AlignedBuffer
    let handle: LiteRtTensorBuffer

    var bytes: UnsafeMutableRawBufferPointer {
      UnsafeMutableRawBufferPointer(start: memory.pointer, count: byteCount)
    }
  }

  let compiled: CompiledModel
  let signature: Int
  /// Tells this set of buffers apart from every other of the same compiled model (never reused,
  /// unlike an object's address).
  let identifier: Int
  let inputs: [Slot]
  let outputs: [Slot]
  /// The buffer handles in the form `LiteRtRunCompiledModel` takes, made once so that an invoke
  /// allocates nothing.
  let inputHandles: UnsafeMutableBufferPointer<LiteRtTensorBuffer?>
  let outputHandles: UnsafeMutableBufferPointer<LiteRtTensorBuffer?>
  /// As many null handles as inputs: what `LiteRtRunCompiledModel` takes for "the input is still
  /// bound to the memory registered last time" (see ``CompiledModel/run(signature:io:timeLimit:)``).
  let unchangedInputHandles: UnsafeMutableBufferPointer<LiteRtTensorBuffer?>

  init(compiled: CompiledModel, signature: Int, limits: ModelValidator.Limits) throws(InterpreterError) {
    self.compiled = compiled
    self.signature = signature
    identifier = compiled.makeIOIdentifier()
    let info = compiled.loaded.signatures[signature]
    let api = compiled.api
    var made: [LiteRtTensorBuffer] = []
    func slot(_ tensor: LoadedModel.TensorInfo, shape: Tensor.Shape, position: Int, isInput: Bool)
      throws(InterpreterError) -> Slot {
      guard let elements = shape.elementCount, let byteCount = tensor.dataType.byteCount(forElementCount: elements) else {
        throw .unsupportedModel(reason: "tensor '\(tensor.tensorName)' (\(tensor.dataType), \(shape)) has no fixed size")
      }
      guard byteCount <= limits.tensorByteCount else {
        throw .tensorTooLarge(name: tensor.tensorName, byteCount: byteCount, limit: limits.tensorByteCount)
      }
      let wanted = try compiled.bufferSize(signature: signature, position: position, isInput: isInput)
      let capacity = max(wanted, byteCount)
      guard capacity <= limits.tensorByteCount else {
        throw .tensorTooLarge(name: tensor.tensorName, byteCount: capacity, limit: limits.tensorByteCount)
      }
      guard let layout = LiteRTLayout.layout(for: shape) else {
        throw .invalidShape(reason: "\(shape) cannot be passed to LiteRT")
      }
      let memory = AlignedBuffer(byteCount: capacity)
      var type = LiteRtRankedTensorType(element_type: tensor.elementType, layout: layout)
      var handle: LiteRtTensorBuffer?
      let status = api.LiteRtCreateTensorBufferFromHostMemory(&type, memory.pointer, capacity, nil, &handle)
      guard status == 0, let handle else {
        throw .failedToAllocateTensors(
          reason: "cannot create a buffer for '\(tensor.tensorName)': \(LiteRTStatus.describe(status))")
      }
      made.append(handle)
      return Slot(info: tensor, shape: shape, byteCount: byteCount, memory: memory, handle: handle)
    }
    do throws(InterpreterError) {
      var inputs: [Slot] = []
      for (position, tensor) in info.inputs.enumerated() {
        let shape = try compiled.inputShape(signature: signature, position: position)
        inputs.append(try slot(tensor, shape: shape, position: position, isInput: true))
      }
      let shapes = try compiled.outputShapes(signature: signature, count: info.outputs.count, allocate: true)
      var outputs: [Slot] = []
      for (position, tensor) in info.outputs.enumerated() {
        outputs.append(try slot(tensor, shape: shapes[position], position: position, isInput: false))
      }
      self.inputs = inputs
      self.outputs = outputs
      inputHandles = .allocate(capacity: inputs.count)
      _ = inputHandles.initialize(from: inputs.map(\.handle))
      outputHandles = .allocate(capacity: outputs.count)
      _ = outputHandles.initialize(from: outputs.map(\.handle))
      unchangedInputHandles = .allocate(capacity: inputs.count)
      unchangedInputHandles.initialize(repeating: nil)
    } catch {
      for handle in made { api.LiteRtDestroyTensorBuffer(handle) }
      throw error
    }
  }

  deinit {
    for slot in inputs { compiled.api.LiteRtDestroyTensorBuffer(slot.handle) }
    for slot in outputs { compiled.api.LiteRtDestroyTensorBuffer(slot.handle) }
    inputHandles.deallocate()
    outputHandles.deallocate()
    unchangedInputHandles.deallocate()
  }
}
