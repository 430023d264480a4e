import Foundation

/// Runs a TensorFlow Lite model on the CPU with Google's LiteRT runtime — the same shape of API
/// as TensorFlowLiteSwift's `Interpreter`, so code ports:
///
/// ```swift
/// let interpreter = try Interpreter(modelPath: path, options: .init(threadCount: 2))
/// try interpreter.allocateTensors()
/// try interpreter.copy(inputData, toInputAt: 0)
/// try interpreter.invoke()
/// let mask = try interpreter.output(at: 0).data
/// ```
///
/// Beyond TensorFlowLiteSwift: named ``signatures`` run with ``invoke(signature:inputs:)``, typed
/// ``InterpreterError``s, a time bound on invoke, memory limits, and validation that keeps
/// corrupt models (structurally broken, or inconsistent in the ways known to crash LiteRT) from
/// crashing the process.
///
/// Outputs are bit-identical to Python's `ai_edge_litert.interpreter.Interpreter` on the same
/// inputs and thread count: both run TensorFlow Lite's kernels with the XNNPACK delegate.
///
/// ## Concurrency
/// An interpreter is not thread-safe — it owns mutable native state and buffers — so it is a
/// non-`Sendable` final class: Swift 6 keeps each one inside a single isolation domain (a task,
/// an actor), where its methods run synchronously. To share one between tasks, put it inside an
/// actor; to run in parallel, create one interpreter per task (they are independent).
public final class Interpreter {
  /// The options the interpreter was created with.
  public let options: Options

  private let loaded: LoadedModel
  private var compiled: CompiledModel?
  /// Buffers of the main signature (what `invoke()` runs), valid while `needsAllocation` is false.
  private var mainIO: SignatureIO?
  /// Buffers of other signatures run by key, made on first use.
  private var signatureIO: [Int: SignatureIO] = [:]
  private var needsAllocation = true
  private var hasInvoked = false
  /// Resizes asked for before the model was compiled, applied by `allocateTensors()`.
  private var pendingResizes: [Int: Tensor.Shape] = [:]

  private var limits: ModelValidator.Limits {
    ModelValidator.Limits(tensorByteCount: options.maximumTensorByteCount,
                          totalByteCount: options.maximumTotalTensorByteCount)
  }

  // MARK: creating

  /// Loads the model at `modelPath`.
  ///
  /// - Throws: ``InterpreterError/modelFileNotFound(path:)``, ``InterpreterError/modelFileUnreadable(path:reason:)``,
  ///   ``InterpreterError/notATFLiteModel(reason:)``, ``InterpreterError/truncatedModel(byteCount:reason:)``,
  ///   ``InterpreterError/invalidModel(reason:)``, ``InterpreterError/unsupportedModel(reason:)``,
  ///   ``InterpreterError/tensorTooLarge(name:byteCount:limit:)``, ``InterpreterError/invalidOptions(reason:)``,
  ///   ``InterpreterError/runtimeUnavailable(reason:)``.
  public convenience init(modelPath: String, options: Options = Options()) throws(InterpreterError) {
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: modelPath, isDirectory: &isDirectory) else {
      throw .modelFileNotFound(path: modelPath)
    }
    guard !isDirectory.boolValue else {
      throw .modelFileUnreadable(path: modelPath, reason: "it is a directory")
    }
    let data: Data
    do {
      data = try Data(contentsOf: URL(fileURLWithPath: modelPath), options: .mappedIfSafe)
    } catch {
      throw .modelFileUnreadable(path: modelPath, reason: error.localizedDescription)
    }
    try self.init(modelData: data, options: options)
  }

  /// Loads a model from its bytes (the contents of a .tflite file). The bytes are copied.
  public init(modelData: Data, options: Options = Options()) throws(InterpreterError) {
    try options.validate()
    self.options = options
    let bytes = modelData.withUnsafeBytes { AlignedBuffer(copying: $0) }
    let summary = try ModelValidator.validate(
      bytes.bytes,
      limits: ModelValidator.Limits(tensorByteCount: options.maximumTensorByteCount,
                                    totalByteCount: options.maximumTotalTensorByteCount))
    let runtime = try LiteRTRuntime.shared()
    loaded = try LoadedModel(runtime: runtime, bytes: bytes, options: options, summary: summary)
  }

  // MARK: tensors

  /// The number of inputs of the main subgraph.
  public var inputTensorCount: Int { loaded.mainInputPositions.count }

  /// The number of outputs of the main subgraph.
  public var outputTensorCount: Int { loaded.mainOutputPositions.count }

  /// Input `index`: its description and, once tensors are allocated, its current bytes (empty
  /// before ``allocateTensors()``).
  public func input(at index: Int) throws(InterpreterError) -> Tensor {
    let position = try inputPosition(index)
    if !needsAllocation, let slot = mainIO?.inputs[position] {
      return tensor(slot, name: slot.info.tensorName)
    }
    let info = loaded.signatures[loaded.mainSignatureIndex].inputs[position]
    return Tensor(name: info.tensorName, dataType: info.dataType, shape: pendingResizes[index] ?? info.shape,
                  data: Data(), quantizationParameters: info.quantization)
  }

  /// Output `index` with the bytes the last ``invoke()`` wrote.
  ///
  /// - Throws: ``InterpreterError/allocateTensorsRequired`` or ``InterpreterError/invokeInterpreterRequired``
  ///   when there is nothing to read yet.
  public func output(at index: Int) throws(InterpreterError) -> Tensor {
    let position = try outputPosition(index)
    guard !needsAllocation, let io = mainIO else { throw .allocateTensorsRequired }
    guard hasInvoked else { throw .invokeInterpreterRequired }
    let slot = io.outputs[position]
    return tensor(slot, name: slot.info.tensorName)
  }

  /// Descriptions of the inputs (names, types, shapes, quantization), without data.
  public var inputDescriptions: [TensorDescription] {
    let signature = loaded.signatures[loaded.mainSignatureIndex]
    return loaded.mainInputPositions.enumerated().map { index, position in
      let info = signature.inputs[position]
      let shape = (!needsAllocation ? mainIO?.inputs[position].shape : nil) ?? pendingResizes[index] ?? info.shape
      return TensorDescription(name: info.tensorName, dataType: info.dataType, shape: shape,
                               quantizationParameters: info.quantization)
    }
  }

  /// Descriptions of the outputs; shapes are the declared ones until tensors are allocated.
  public var outputDescriptions: [TensorDescription] {
    let signature = loaded.signatures[loaded.mainSignatureIndex]
    return loaded.mainOutputPositions.map { position in
      let info = signature.outputs[position]
      let shape = (!needsAllocation ? mainIO?.outputs[position].shape : nil) ?? info.shape
      return TensorDescription(name: info.tensorName, dataType: info.dataType, shape: shape,
                               quantizationParameters: info.quantization)
    }
  }

  // MARK: running

  /// Prepares the model to run: compiles it for the CPU (on the first call) and allocates every
  /// input and output for the current shapes. Needed before ``copy(_:toInputAt:)`` and
  /// ``invoke()``, and again after ``resizeInput(at:to:)``. Input data does not survive it.
  ///
  /// - Throws: ``InterpreterError/failedToCreateInterpreter(reason:)`` (the model cannot be
  ///   prepared), ``InterpreterError/failedToAllocateTensors(reason:)`` (not for these shapes),
  ///   ``InterpreterError/invalidShape(reason:)``, ``InterpreterError/tensorTooLarge(name:byteCount:limit:)``.
  public func allocateTensors() throws(InterpreterError) {
    let compiled = try compiledModel()
    let signature = loaded.mainSignatureIndex
    for (index, shape) in pendingResizes.sorted(by: { $0.key < $1.key }) {
      try compiled.resizeInput(signature: signature, position: loaded.mainInputPositions[index], to: shape)
    }
    pendingResizes = [:]
    mainIO = nil
    signatureIO[signature] = nil
    let io = try SignatureIO(compiled: compiled, signature: signature, limits: limits)
    mainIO = io
    signatureIO[signature] = io
    needsAllocation = false
    hasInvoked = false
  }

  /// Copies `data` — the raw bytes of the tensor, in its element type, row-major,
  /// little-endian — into input `index`.
  ///
  /// - Throws: ``InterpreterError/invalidTensorIndex(index:maxIndex:)``, ``InterpreterError/allocateTensorsRequired``,
  ///   ``InterpreterError/invalidTensorDataCount(provided:required:)``.
  /// - Returns: The input tensor with its new bytes.
  @discardableResult
  public func copy(_ data: Data, toInputAt index: Int) throws(InterpreterError) -> Tensor {
    let position = try inputPosition(index)
    guard !needsAllocation, let io = mainIO else { throw .allocateTensorsRequired }
    let slot = io.inputs[position]
    guard data.count == slot.byteCount else {
      throw .invalidTensorDataCount(provided: data.count, required: slot.byteCount)
    }
    data.withUnsafeBytes { source in
      if let base = source.baseAddress, slot.byteCount > 0 {
        slot.memory.pointer.copyMemory(from: base, byteCount: slot.byteCount)
      }
    }
    return tensor(slot, name: slot.info.tensorName)
  }

  /// Runs the model on the current inputs.
  ///
  /// - Throws: ``InterpreterError/allocateTensorsRequired`` (not allocated, or resized since),
  ///   ``InterpreterError/invocationFailed(reason:)``, ``InterpreterError/invocationTimedOut(limit:)``.
  public func invoke() throws(InterpreterError) {
    guard !needsAllocation, let io = mainIO, let compiled else { throw .allocateTensorsRequired }
    hasInvoked = false
    try compiled.run(signature: io.signature, io: io, timeLimit: options.invocationTimeLimit)
    hasInvoked = true
  }

  /// Changes the shape of input `index` (as TensorFlow Lite's non-strict resize: any shape the
  /// model's operators accept). Call ``allocateTensors()`` afterwards.
  ///
  /// - Throws: ``InterpreterError/invalidTensorIndex(index:maxIndex:)``, ``InterpreterError/invalidShape(reason:)``
  ///   (no dimensions, a dimension below 1, more than 8, or refused by the runtime),
  ///   ``InterpreterError/tensorTooLarge(name:byteCount:limit:)``.
  public func resizeInput(at index: Int, to shape: Tensor.Shape) throws(InterpreterError) {
    let position = try inputPosition(index)
    guard shape.rank > 0 else { throw .invalidShape(reason: "a shape needs at least one dimension") }
    guard shape.rank <= LiteRTLayout.maximumRank else {
      throw .invalidShape(reason: "\(shape) has more than \(LiteRTLayout.maximumRank) dimensions")
    }
    guard shape.dimensions.allSatisfy({ $0 >= 1 && $0 <= Int(Int32.max) }) else {
      throw .invalidShape(reason: "every dimension of \(shape) must be at least 1")
    }
    let info = loaded.signatures[loaded.mainSignatureIndex].inputs[position]
    let bytes = shape.elementCount.flatMap { info.dataType.byteCount(forElementCount: $0) } ?? Int.max
    guard bytes <= options.maximumTensorByteCount else {
      throw .tensorTooLarge(name: info.tensorName, byteCount: bytes, limit: options.maximumTensorByteCount)
    }
    if let compiled {
      try compiled.resizeInput(signature: loaded.mainSignatureIndex, position: position, to: shape)
    } else {
      pendingResizes[index] = shape
    }
    needsAllocation = true
    hasInvoked = false
    signatureIO[loaded.mainSignatureIndex] = nil
  }

  // MARK: signatures

  /// The keys of the model's signatures (empty when the model declares none), in model order.
  public var signatureKeys: [String] { signatures.map(\.key) }

  /// The model's signatures with their named inputs and outputs (empty when it declares none).
  public var signatures: [Signature] {
    guard loaded.declaresSignatures else { return [] }
    return loaded.signatures.map { signature in
      Signature(key: signature.key,
                inputs: signature.inputs.map(Self.signatureDescription),
                outputs: signature.outputs.map(Self.signatureDescription))
    }
  }

  /// Runs the signature `key` with `inputs` (raw bytes by input name, as in ``copy(_:toInputAt:)``)
  /// and returns every output by name. Compiles the model and allocates the signature's tensors
  /// if needed (for the main subgraph's signature, as ``allocateTensors()`` would, keeping
  /// resized shapes; other signatures keep their declared shapes).
  ///
  /// - Throws: ``InterpreterError/signatureNotFound(key:)``, ``InterpreterError/signatureTensorNotFound(key:name:)``
  ///   (an input name the signature does not have), ``InterpreterError/missingSignatureInput(key:name:)``,
  ///   ``InterpreterError/invalidTensorDataCount(provided:required:)``, and the errors of ``invoke()``.
  public func invoke(signature key: String, inputs: [String: Data]) throws(InterpreterError) -> [String: Tensor] {
    guard loaded.declaresSignatures, let index = loaded.signatures.firstIndex(where: { $0.key == key }) else {
      throw .signatureNotFound(key: key)
    }
    let signature = loaded.signatures[index]
    for name in inputs.keys where !signature.inputs.contains(where: { $0.signatureName == name }) {
      throw .signatureTensorNotFound(key: key, name: name)
    }
    if index == loaded.mainSignatureIndex, needsAllocation || !pendingResizes.isEmpty {
      try allocateTensors()
    }
    let compiled = try compiledModel()
    let io: SignatureIO
    if let existing = signatureIO[index] {
      io = existing
    } else {
      io = try SignatureIO(compiled: compiled, signature: index, limits: limits)
      signatureIO[index] = io
      if index == loaded.mainSignatureIndex {
        mainIO = io
        needsAllocation = false
      }
    }
    for slot in io.inputs {
      guard let data = inputs[slot.info.signatureName] else {
        throw .missingSignatureInput(key: key, name: slot.info.signatureName)
      }
      guard data.count == slot.byteCount else {
        throw .invalidTensorDataCount(provided: data.count, required: slot.byteCount)
      }
      data.withUnsafeBytes { source in
        if let base = source.baseAddress, slot.byteCount > 0 {
          slot.memory.pointer.copyMemory(from: base, byteCount: slot.byteCount)
        }
      }
    }
    if index == loaded.mainSignatureIndex { hasInvoked = false }
    try compiled.run(signature: index, io: io, timeLimit: options.invocationTimeLimit)
    if index == loaded.mainSignatureIndex { hasInvoked = true }
    var result: [String: Tensor] = [:]
    for slot in io.outputs {
      result[slot.info.signatureName] = tensor(slot, name: slot.info.signatureName)
    }
    return result
  }

  // MARK: helpers

  private func compiledModel() throws(InterpreterError) -> CompiledModel {
    if let compiled { return compiled }
    let made = try CompiledModel(loaded: loaded, options: options)
    compiled = made
    return made
  }

  private func inputPosition(_ index: Int) throws(InterpreterError) -> Int {
    guard loaded.mainInputPositions.indices.contains(index) else {
      throw .invalidTensorIndex(index: index, maxIndex: inputTensorCount - 1)
    }
    return loaded.mainInputPositions[index]
  }

  private func outputPosition(_ index: Int) throws(InterpreterError) -> Int {
    guard loaded.mainOutputPositions.indices.contains(index) else {
      throw .invalidTensorIndex(index: index, maxIndex: outputTensorCount - 1)
    }
    return loaded.mainOutputPositions[index]
  }

  private func tensor(_ slot: SignatureIO.Slot, name: String) -> Tensor {
    Tensor(name: name, dataType: slot.info.dataType, shape: slot.shape,
           data: Data(bytes: slot.memory.pointer, count: slot.byteCount),
           quantizationParameters: slot.info.quantization)
  }

  private static func signatureDescription(_ info: LoadedModel.TensorInfo) -> TensorDescription {
    TensorDescription(name: info.signatureName, dataType: info.dataType, shape: info.shape,
                      quantizationParameters: info.quantization)
  }
}
