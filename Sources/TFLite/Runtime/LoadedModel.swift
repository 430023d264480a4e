import CLiteRT

/// A validated model handed to LiteRT: its bytes (which LiteRT reads in place and must outlive
/// it), a LiteRT environment, the `LiteRtModel`, and what the model declares about its signatures.
final class LoadedModel {
  /// One tensor of a signature, as declared by the model.
  struct TensorInfo {
    /// The signature's name for the tensor.
    let signatureName: String
    /// The tensor's own name (what Python's `get_input_details()` reports).
    let tensorName: String
    let dataType: Tensor.DataType
    /// LiteRT's number for the element type.
    let elementType: Int32
    let shape: Tensor.Shape
    let quantization: Tensor.QuantizationParameters?
    let handle: LiteRtTensor
  }

  struct SignatureInfo {
    let key: String
    let subgraph: LiteRtSubgraph
    let inputs: [TensorInfo]
    let outputs: [TensorInfo]
  }

  let runtime: LiteRTRuntime
  let bytes: AlignedBuffer
  let environment: LiteRtEnvironment
  let model: LiteRtModel
  /// Every signature LiteRT knows, in its order (its signature indices).
  let signatures: [SignatureInfo]
  /// Whether the file declares its signatures (otherwise LiteRT's single invented one is hidden).
  let declaresSignatures: Bool
  /// The signature that runs the main subgraph: what ``Interpreter/invoke()`` runs.
  let mainSignatureIndex: Int
  /// For each main-subgraph input (the Interpreter's input order), its position in the signature.
  let mainInputPositions: [Int]
  /// For each main-subgraph output, its position in the signature.
  let mainOutputPositions: [Int]

  var api: HybridLiteRtApi { runtime.api }

  init(runtime: LiteRTRuntime, bytes: AlignedBuffer, options: Interpreter.Options,
       summary: ModelValidator.Summary) throws(InterpreterError) {
    self.runtime = runtime
    self.bytes = bytes
    let api = runtime.api

    var severity = LiteRtEnvOption()
    severity.tag = Int32(kHybridLiteRtEnvOptionTagMinLoggerSeverity)
    severity.value.type = Int32(kHybridLiteRtAnyTypeInt)
    severity.value.int_value = Int64(options.runtimeLogSeverity.rawValue)
    var environment: LiteRtEnvironment?
    let environmentStatus = api.LiteRtCreateEnvironment(1, &severity, &environment)
    guard environmentStatus == 0, let environment else {
      throw .runtimeUnavailable(reason: "cannot create a LiteRT environment: \(LiteRTStatus.describe(environmentStatus))")
    }

    var model: LiteRtModel?
    let modelStatus = api.LiteRtCreateModelFromBuffer(environment, bytes.pointer, bytes.byteCount, &model)
    guard modelStatus == 0, let model else {
      api.LiteRtDestroyEnvironment(environment)
      switch modelStatus {
      case Int32(kHybridLiteRtStatusErrorUnsupported):
        throw .unsupportedModel(reason: "LiteRT cannot load it: \(LiteRTStatus.describe(modelStatus))")
      default:
        throw .invalidModel(reason: "LiteRT rejected it: \(LiteRTStatus.describe(modelStatus))")
      }
    }
    self.environment = environment
    self.model = model

    do throws(InterpreterError) {
      let signatures = try Self.readSignatures(api, model)
      let main = try Self.mainSubgraph(api, model)
      guard let mainIndex = signatures.firstIndex(where: { $0.subgraph == main.subgraph }) else {
        throw InterpreterError.unsupportedModel(reason: "no signature runs the main subgraph")
      }
      let signature = signatures[mainIndex]
      func positions(of tensors: [LiteRtTensor], in infos: [TensorInfo]) throws(InterpreterError) -> [Int] {
        var result: [Int] = []
        for tensor in tensors {
          guard let position = infos.firstIndex(where: { $0.handle == tensor }) else {
            throw .unsupportedModel(reason: "the main signature does not cover every input and output of the main subgraph")
          }
          result.append(position)
        }
        return result
      }
      self.signatures = signatures
      self.declaresSignatures = summary.signatureDefCount > 0
      self.mainSignatureIndex = mainIndex
      self.mainInputPositions = try positions(of: main.inputs, in: signature.inputs)
      self.mainOutputPositions = try positions(of: main.outputs, in: signature.outputs)
    } catch {
      api.LiteRtDestroyModel(model)
      api.LiteRtDestroyEnvironment(environment)
      throw error
    }
  }

  deinit {
    api.LiteRtDestroyModel(model)
    api.LiteRtDestroyEnvironment(environment)
  }

  // MARK: reading the model

  private static func check(_ status: Int32, _ what: String) throws(InterpreterError) {
    guard status == 0 else { throw .invalidModel(reason: "\(what): \(LiteRTStatus.describe(status))") }
  }

  private static func string(_ pointer: UnsafePointer<CChar>?) -> String {
    pointer.map { String(cString: $0) } ?? ""
  }

  private static func mainSubgraph(_ api: HybridLiteRtApi, _ model: LiteRtModel)
    throws(InterpreterError) -> (subgraph: LiteRtSubgraph, inputs: [LiteRtTensor], outputs: [LiteRtTensor]) {
    var index: LiteRtParamIndex = 0
    try check(api.LiteRtGetMainModelSubgraphIndex(model, &index), "main subgraph index")
    var subgraph: LiteRtSubgraph?
    try check(api.LiteRtGetModelSubgraph(model, index, &subgraph), "main subgraph")
    guard let subgraph else { throw .invalidModel(reason: "no main subgraph") }
    var inputCount: LiteRtParamIndex = 0
    var outputCount: LiteRtParamIndex = 0
    try check(api.LiteRtGetNumSubgraphInputs(subgraph, &inputCount), "subgraph inputs")
    try check(api.LiteRtGetNumSubgraphOutputs(subgraph, &outputCount), "subgraph outputs")
    var inputs: [LiteRtTensor] = []
    for position in 0..<inputCount {
      var tensor: LiteRtTensor?
      try check(api.LiteRtGetSubgraphInput(subgraph, position, &tensor), "subgraph input")
      guard let tensor else { throw .invalidModel(reason: "subgraph input \(position) missing") }
      inputs.append(tensor)
    }
    var outputs: [LiteRtTensor] = []
    for position in 0..<outputCount {
      var tensor: LiteRtTensor?
      try check(api.LiteRtGetSubgraphOutput(subgraph, position, &tensor), "subgraph output")
      guard let tensor else { throw .invalidModel(reason: "subgraph output \(position) missing") }
      outputs.append(tensor)
    }
    return (subgraph, inputs, outputs)
  }

  private static func readSignatures(_ api: HybridLiteRtApi, _ model: LiteRtModel)
    throws(InterpreterError) -> [SignatureInfo] {
    var count: LiteRtParamIndex = 0
    try check(api.LiteRtGetNumModelSignatures(model, &count), "signature count")
    var result: [SignatureInfo] = []
    for index in 0..<count {
      var signature: LiteRtSignature?
      try check(api.LiteRtGetModelSignature(model, index, &signature), "signature \(index)")
      guard let signature else { throw .invalidModel(reason: "signature \(index) missing") }
      var key: UnsafePointer<CChar>?
      try check(api.LiteRtGetSignatureKey(signature, &key), "signature key")
      var subgraph: LiteRtSubgraph?
      try check(api.LiteRtGetSignatureSubgraph(signature, &subgraph), "signature subgraph")
      guard let subgraph else { throw .invalidModel(reason: "signature \(index) has no subgraph") }

      var inputCount: LiteRtParamIndex = 0
      var outputCount: LiteRtParamIndex = 0
      try check(api.LiteRtGetNumSignatureInputs(signature, &inputCount), "signature inputs")
      try check(api.LiteRtGetNumSignatureOutputs(signature, &outputCount), "signature outputs")
      var inputs: [TensorInfo] = []
      for position in 0..<inputCount {
        var name: UnsafePointer<CChar>?
        try check(api.LiteRtGetSignatureInputName(signature, position, &name), "input name")
        var tensor: LiteRtTensor?
        try check(api.LiteRtGetSignatureInputTensorByIndex(signature, position, &tensor), "input tensor")
        guard let tensor else { throw .invalidModel(reason: "signature input \(position) missing") }
        inputs.append(try describe(api, tensor, signatureName: string(name)))
      }
      var outputs: [TensorInfo] = []
      for position in 0..<outputCount {
        var name: UnsafePointer<CChar>?
        try check(api.LiteRtGetSignatureOutputName(signature, position, &name), "output name")
        var tensor: LiteRtTensor?
        try check(api.LiteRtGetSignatureOutputTensorByIndex(signature, position, &tensor), "output tensor")
        guard let tensor else { throw .invalidModel(reason: "signature output \(position) missing") }
        outputs.append(try describe(api, tensor, signatureName: string(name)))
      }
      result.append(SignatureInfo(key: string(key), subgraph: subgraph, inputs: inputs, outputs: outputs))
    }
    return result
  }

  private static func describe(_ api: HybridLiteRtApi, _ tensor: LiteRtTensor, signatureName: String)
    throws(InterpreterError) -> TensorInfo {
    var namePointer: UnsafePointer<CChar>?
    try check(api.LiteRtGetTensorName(tensor, &namePointer), "tensor name")
    let name = string(namePointer)
    var typeId: Int32 = 0
    try check(api.LiteRtGetTensorTypeId(tensor, &typeId), "tensor type of '\(name)'")
    let elementType: Int32
    var shape = Tensor.Shape([])
    if typeId == Int32(kHybridLiteRtRankedTensorType) {
      var ranked = LiteRtRankedTensorType()
      try check(api.LiteRtGetRankedTensorType(tensor, &ranked), "tensor type of '\(name)'")
      elementType = ranked.element_type
      shape = LiteRTLayout.shape(of: ranked.layout)
    } else {
      var unranked = LiteRtUnrankedTensorType()
      try check(api.LiteRtGetUnrankedTensorType(tensor, &unranked), "tensor type of '\(name)'")
      elementType = unranked.element_type
    }
    guard let dataType = Tensor.DataType(liteRtElementType: elementType) else {
      throw .unsupportedModel(reason: "tensor '\(name)' has element type \(elementType)")
    }
    var quantizationType: Int32 = 0
    var quantization: Tensor.QuantizationParameters?
    if api.LiteRtGetQuantizationTypeId(tensor, &quantizationType) == 0,
       quantizationType == Int32(kHybridLiteRtQuantizationPerTensor) {
      var perTensor = LiteRtQuantizationPerTensor()
      if api.LiteRtGetPerTensorQuantization(tensor, &perTensor) == 0 {
        quantization = Tensor.QuantizationParameters(scale: perTensor.scale, zeroPoint: Int(perTensor.zero_point))
      }
    }
    return TensorInfo(signatureName: signatureName.isEmpty ? name : signatureName, tensorName: name,
                      dataType: dataType, elementType: elementType, shape: shape, quantization: quantization, handle: tensor)
  }
}
