/// Checks a .tflite file's bytes before LiteRT sees them, so that a corrupt model is an error and
/// never a crash of the host process.
///
/// What LiteRT does itself: `LiteRtCreateModelFromFile` does not verify the FlatBuffer at all
/// (v2.2.0 source: `FlatBufferModel::BuildFromAllocation`, no verifier);
/// `LiteRtCreateModelFromBuffer` (the one ``Interpreter`` uses) runs the FlatBuffers verifier over
/// the TFLite schema, but the model unpacking that follows trusts values the verifier cannot
/// judge. In the v2.2.0 source it reads `zero_point[0]` of a per-tensor quantization whose
/// `zero_point` (or `scale`) vector may be missing — with ai-edge-litert 2.3.0 such a model
/// kills the process with SIGSEGV — and it indexes `operator_codes` with an operator's
/// `opcode_index`, dereferences a metadata entry's name and the `buffers` vector, and follows
/// blockwise quantization tensor indices without checks, and copies a tensor's shape into an
/// 8-entry array whatever its rank (the 2.3.0 binary refuses some of these itself).
///
/// This validator reads the model with a bounds-checked reader (every table, vector and string
/// the loader reaches) and rejects those cases, plus tensors whose declared size exceeds the
/// configured limits (a corrupted dimension can ask for tens of gigabytes, which the runtime
/// would try to allocate and fill). It also gives distinct errors for a file that is not a TFLite
/// model at all and one that was cut short.
enum ModelValidator {
  /// The largest rank a LiteRT layout can hold.
  static let maximumRank = 8

  /// Memory limits for the validated model's tensors.
  struct Limits: Sendable {
    /// The most bytes any one tensor may declare.
    var tensorByteCount: Int
    /// The most bytes all non-constant tensors together may declare.
    var totalByteCount: Int
  }

  /// What validation learned that the runtime does not say.
  struct Summary: Sendable {
    /// How many `SignatureDef`s the file declares (LiteRT invents one for a model without any).
    var signatureDefCount: Int
  }

  /// Validates `bytes` (the whole .tflite file) or throws why it cannot be handed to LiteRT.
  @discardableResult
  static func validate(_ bytes: UnsafeRawBufferPointer, limits: Limits) throws(InterpreterError) -> Summary {
    try checkIdentifier(bytes)
    let reader = FlatbufferReader(bytes: bytes)
    do {
      return try validateModel(reader, limits: limits)
    } catch let failure as FlatbufferReader.Failure {
      switch failure {
      case .beyondEnd(let offset, let needed):
        // Both come from the file: their sum may not fit in Int.
        let (end, overflow) = offset.addingReportingOverflow(needed)
        throw .truncatedModel(
          byteCount: bytes.count,
          reason: overflow ? "it refers to \(needed) bytes at \(offset), past its end"
                           : "it refers to bytes \(offset)..<\(end), past its end")
      case .malformed(let reason):
        throw .invalidModel(reason: reason)
      }
    } catch let error as InterpreterError {
      throw error
    } catch {
      throw .invalidModel(reason: "\(error)")
    }
  }

  /// The FlatBuffer file identifier of TFLite models, at bytes 4..<8.
  static let identifier: [UInt8] = Array("TFL3".utf8)

  static func checkIdentifier(_ bytes: UnsafeRawBufferPointer) throws(InterpreterError) {
    guard !bytes.isEmpty else { throw .notATFLiteModel(reason: "the file is empty") }
    if bytes.count < 8 {
      let present = Array(bytes.dropFirst(4))
      if bytes.count > 4, Array(identifier.prefix(present.count)) == present {
        throw .truncatedModel(byteCount: bytes.count, reason: "the file ends inside its header")
      }
      throw .notATFLiteModel(reason: "\(bytes.count) bytes are too few for a TFLite header")
    }
    let found = Array(bytes[4..<8])
    guard found == identifier else {
      let shown = found.map { (32...126).contains($0) ? String(UnicodeScalar($0)) : "." }.joined()
      throw .notATFLiteModel(reason: "no \"TFL3\" identifier at byte 4 (found \"\(shown)\")")
    }
  }

  // MARK: the model

  // Field slots of the TFLite schema (tflite/converter/schema/schema.fbs, LiteRT v2.2.0).
  private enum ModelField {
    static let operatorCodes = 1, subgraphs = 2, description = 3, buffers = 4, metadataBuffer = 5,
               metadata = 6, signatureDefs = 7
  }
  private enum SubgraphField { static let tensors = 0, inputs = 1, outputs = 2, operators = 3, name = 4 }
  private enum TensorField {
    static let shape = 0, type = 1, buffer = 2, name = 3, quantization = 4, sparsity = 6, shapeSignature = 7
  }
  private enum QuantizationField {
    static let min = 0, max = 1, scale = 2, zeroPoint = 3, detailsType = 4, details = 5
  }
  private enum BlockwiseField { static let scales = 0, zeroPoints = 1 }
  private enum OperatorCodeField { static let deprecatedBuiltinCode = 0, customCode = 1, builtinCode = 3 }

  /// The builtin operator of an `OperatorCode` (the larger of the old byte and the new int field).
  private static func builtinCode(_ reader: FlatbufferReader, _ code: FlatbufferReader.Table) throws -> Int {
    let deprecated = Int(Int8(bitPattern: try reader.u8(code, OperatorCodeField.deprecatedBuiltinCode)))
    let current = Int(try reader.i32(code, OperatorCodeField.builtinCode))
    return max(deprecated, current)
  }
  private enum OperatorField {
    static let opcodeIndex = 0, inputs = 1, outputs = 2, builtinOptions = 4, customOptions = 5,
               mutatingVariableInputs = 7, intermediates = 8, builtinOptions2 = 12
  }
  private enum SignatureField { static let inputs = 0, outputs = 1, key = 2 }
  private enum TensorMapField { static let name = 0 }
  private enum BufferField { static let data = 0, offset = 1, size = 2 }
  private enum MetadataField { static let name = 0, buffer = 1 }
  /// `QuantizationDetails` union member number of `BlockwiseQuantization`.
  private static let blockwiseQuantization: UInt8 = 2

  private static func validateModel(_ reader: FlatbufferReader, limits: Limits) throws -> Summary {
    let model = try reader.rootTable()
    _ = try reader.string(model, ModelField.description)
    _ = try reader.vector(model, ModelField.metadataBuffer, elementSize: 4)
    let operatorCodes = try reader.vector(model, ModelField.operatorCodes, elementSize: 4)
    let operatorCodeCount = operatorCodes?.count ?? 0
    if let operatorCodes {
      for index in 0..<operatorCodes.count {
        _ = try reader.string(try reader.table(in: operatorCodes, at: index), OperatorCodeField.customCode)
      }
    }
    let buffers = try reader.vector(model, ModelField.buffers, elementSize: 4)
    let bufferCount = buffers?.count ?? 0

    // Buffers: data in range; data appended after the FlatBuffer (offset/size) inside the file.
    /// Buffers holding data (constant tensors), with their sizes.
    var constantBuffers: [Int: Int] = [:]
    /// The data vectors of buffers stored inside the FlatBuffer.
    var bufferData: [Int: FlatbufferReader.Vector] = [:]
    if let buffers {
      for index in 0..<buffers.count {
        let buffer = try reader.table(in: buffers, at: index)
        if let data = try reader.vector(buffer, BufferField.data, elementSize: 1), data.count > 0 {
          constantBuffers[index] = data.count
          bufferData[index] = data
        }
        let offset = try reader.u64(buffer, BufferField.offset)
        let size = try reader.u64(buffer, BufferField.size)
        if offset != 0 {
          guard offset <= UInt64(reader.size), size <= UInt64(reader.size) - offset else {
            throw FlatbufferReader.Failure.beyondEnd(offset: Int(clamping: offset), needed: Int(clamping: size))
          }
          if size > 0 { constantBuffers[index] = Int(size) }
        }
      }
    }

    guard let subgraphs = try reader.vector(model, ModelField.subgraphs, elementSize: 4), subgraphs.count > 0 else {
      throw InterpreterError.invalidModel(reason: "the model has no subgraphs")
    }
    var totalBytes = 0
    var variables = VariableCheck()
    for subgraphIndex in 0..<subgraphs.count {
      let subgraph = try reader.table(in: subgraphs, at: subgraphIndex)
      _ = try reader.string(subgraph, SubgraphField.name)
      let tensors = try reader.vector(subgraph, SubgraphField.tensors, elementSize: 4)
      let tensorCount = tensors?.count ?? 0
      var tensorFacts: [TensorFacts] = []
      if let tensors {
        for index in 0..<tensors.count {
          let tensor = try reader.table(in: tensors, at: index)
          let facts = try validateTensor(reader, tensor, index: index, subgraph: subgraphIndex,
                                         tensorCount: tensorCount, bufferCount: bufferCount, limits: limits)
          let buffer = Int(try reader.u32(tensor, TensorField.buffer))
          var described = facts
          described.constantData = bufferData[buffer]
          tensorFacts.append(described)
          // A constant's data is exactly as long as its declared type and shape say (TFLite's own
          // rule for read-only tensors); a shorter or longer buffer means a corrupted shape.
          if let size = constantBuffers[buffer], facts.type?.byteCount != nil, !facts.isSparse,
             facts.staticShape != nil || !facts.declaredShape.contains(-1), size != facts.bytes {
            throw InterpreterError.invalidModel(
              reason: "constant tensor \(facts.name.map { "'\($0)'" } ?? "\(index)") declares \(facts.bytes) bytes; its buffer holds \(size)")
          }
          if constantBuffers[buffer] == nil {
            let bytes = facts.bytes
            totalBytes = totalBytes.addingReportingOverflow(bytes).overflow ? Int.max : totalBytes + bytes
            if totalBytes > limits.totalByteCount {
              throw InterpreterError.tensorTooLarge(name: "(all tensors of subgraph \(subgraphIndex))",
                                                    byteCount: totalBytes, limit: limits.totalByteCount)
            }
          }
        }
      }
      var subgraphInputs = Set<Int>()
      var subgraphOutputs: [Int] = []
      for slot in [SubgraphField.inputs, SubgraphField.outputs] {
        if let indices = try reader.vector(subgraph, slot, elementSize: 4) {
          for position in 0..<indices.count {
            let index = Int(try reader.i32(in: indices, at: position))
            guard (0..<tensorCount).contains(index) else {
              throw InterpreterError.invalidModel(
                reason: "subgraph \(subgraphIndex) names tensor \(index) as an input or output; it has \(tensorCount)")
            }
            if slot == SubgraphField.inputs {
              guard tensorFacts[index].constantData == nil else {
                throw InterpreterError.invalidModel(reason: "input tensor \(index) of subgraph \(subgraphIndex) is a constant")
              }
              subgraphInputs.insert(index)
            } else {
              subgraphOutputs.append(index)
            }
          }
        }
      }
      var produced = Set<Int>()
      if let operators = try reader.vector(subgraph, SubgraphField.operators, elementSize: 4) {
        for index in 0..<operators.count {
          let op = try reader.table(in: operators, at: index)
          _ = try reader.table(op, OperatorField.builtinOptions)
          _ = try reader.table(op, OperatorField.builtinOptions2)
          _ = try reader.vector(op, OperatorField.customOptions, elementSize: 1)
          _ = try reader.vector(op, OperatorField.mutatingVariableInputs, elementSize: 1)
          _ = try reader.vector(op, OperatorField.intermediates, elementSize: 4)
          let opcode = Int(try reader.u32(op, OperatorField.opcodeIndex))
          guard opcode < operatorCodeCount else {
            throw InterpreterError.invalidModel(
              reason: "operator \(index) of subgraph \(subgraphIndex) uses operator code \(opcode); the model has \(operatorCodeCount)")
          }
          var operands: [[Int]] = []
          for slot in [OperatorField.inputs, OperatorField.outputs] {
            var list: [Int] = []
            if let indices = try reader.vector(op, slot, elementSize: 4) {
              for position in 0..<indices.count {
                let tensor = Int(try reader.i32(in: indices, at: position))
                guard tensor == -1 || (0..<tensorCount).contains(tensor) else {
                  throw InterpreterError.invalidModel(
                    reason: "operator \(index) of subgraph \(subgraphIndex) refers to tensor \(tensor); the subgraph has \(tensorCount)")
                }
                list.append(tensor)
              }
            }
            operands.append(list)
          }
          // Each tensor has at most one producer, which is not a constant nor a subgraph input.
          for output in operands[1] where output >= 0 {
            guard !produced.contains(output), !subgraphInputs.contains(output) else {
              throw InterpreterError.invalidModel(
                reason: "tensor \(output) of subgraph \(subgraphIndex) is written by operator \(index) and also elsewhere")
            }
            guard tensorFacts[output].constantData == nil else {
              throw InterpreterError.invalidModel(
                reason: "operator \(index) of subgraph \(subgraphIndex) writes to constant tensor \(output)")
            }
            produced.insert(output)
          }
          if let operatorCodes {
            let code = try builtinCode(reader, try reader.table(in: operatorCodes, at: opcode))
            try OperatorShapeCheck.check(code: code, operator: op, inputs: operands[0], outputs: operands[1],
                                         tensors: tensorFacts, reader: reader, operatorIndex: index,
                                         subgraph: subgraphIndex)
            try variables.record(code: code, operator: op, inputs: operands[0], outputs: operands[1],
                                 tensors: tensorFacts, reader: reader, operatorIndex: index, subgraph: subgraphIndex)
          }
        }
      }
      // Outputs the runtime hands back must be computed (or be inputs): binding an output buffer
      // to a constant or an unwritten tensor corrupts memory.
      for output in subgraphOutputs where !produced.contains(output) && !subgraphInputs.contains(output) {
        throw InterpreterError.invalidModel(
          reason: "output tensor \(output) of subgraph \(subgraphIndex) is not computed by any operator")
      }
    }

    try variables.finish()

    if let metadata = try reader.vector(model, ModelField.metadata, elementSize: 4) {
      for index in 0..<metadata.count {
        let entry = try reader.table(in: metadata, at: index)
        guard try reader.string(entry, MetadataField.name) != nil else {
          throw InterpreterError.invalidModel(reason: "metadata entry \(index) has no name")
        }
        let buffer = Int(try reader.u32(entry, MetadataField.buffer))
        guard buffer < bufferCount else {
          throw InterpreterError.invalidModel(
            reason: "metadata entry \(index) refers to buffer \(buffer); the model has \(bufferCount)")
        }
      }
    }
    let signatureDefs = try reader.vector(model, ModelField.signatureDefs, elementSize: 4)
    if let signatureDefs {
      for index in 0..<signatureDefs.count {
        let signature = try reader.table(in: signatureDefs, at: index)
        _ = try reader.string(signature, SignatureField.key)
        for slot in [SignatureField.inputs, SignatureField.outputs] {
          guard let maps = try reader.vector(signature, slot, elementSize: 4) else { continue }
          for position in 0..<maps.count {
            _ = try reader.string(try reader.table(in: maps, at: position), TensorMapField.name)
          }
        }
      }
    }
    return Summary(signatureDefCount: signatureDefs?.count ?? 0)
  }

  /// What an operator check needs to know about a tensor.
  struct TensorFacts {
    var name: String?
    var type: Tensor.DataType?
    /// The declared shape; nil when the tensor has no static shape (no shape, or an unknown
    /// dimension in its shape signature).
    var staticShape: [Int]?
    var bytes: Int
    /// The constant data inside the FlatBuffer, if the tensor has some.
    var constantData: FlatbufferReader.Vector?
    /// The declared shape, `[]` when absent (for a constant: a scalar).
    var declaredShape: [Int] = []
    /// Whether the tensor is stored sparse (its data is not `bytes` long).
    var isSparse = false
  }

  /// Validates one tensor and returns what it declares.
  private static func validateTensor(_ reader: FlatbufferReader, _ tensor: FlatbufferReader.Table,
                                     index: Int, subgraph: Int, tensorCount: Int, bufferCount: Int,
                                     limits: Limits) throws -> TensorFacts {
    let name = try reader.string(tensor, TensorField.name)
    let label = name.map { "'\($0)'" } ?? "\(index)"
    let buffer = Int(try reader.u32(tensor, TensorField.buffer))
    guard buffer == 0 || buffer < bufferCount else {
      throw InterpreterError.invalidModel(
        reason: "tensor \(label) of subgraph \(subgraph) refers to buffer \(buffer); the model has \(bufferCount)")
    }
    var dimensions: [Int] = []
    var hasShape = false
    var dynamic = false
    for slot in [TensorField.shape, TensorField.shapeSignature] {
      guard let shape = try reader.vector(tensor, slot, elementSize: 4) else { continue }
      guard shape.count <= maximumRank else {
        throw InterpreterError.unsupportedModel(
          reason: "tensor \(label) has \(shape.count) dimensions; LiteRT supports at most \(maximumRank)")
      }
      var values: [Int] = []
      for position in 0..<shape.count {
        let dimension = Int(try reader.i32(in: shape, at: position))
        guard dimension >= -1 else {
          throw InterpreterError.invalidModel(reason: "tensor \(label) has dimension \(dimension)")
        }
        values.append(dimension)
      }
      if slot == TensorField.shape {
        dimensions = values
        hasShape = true
      }
      if values.contains(-1) { dynamic = true }
    }
    let type = Tensor.DataType(schemaTensorType: try reader.u8(tensor, TensorField.type))

    if let quantization = try reader.table(tensor, TensorField.quantization) {
      _ = try reader.vector(quantization, QuantizationField.min, elementSize: 4)
      _ = try reader.vector(quantization, QuantizationField.max, elementSize: 4)
      let scales = try reader.vector(quantization, QuantizationField.scale, elementSize: 4)?.count ?? 0
      let zeroPoints = try reader.vector(quantization, QuantizationField.zeroPoint, elementSize: 8)?.count ?? 0
      if scales > 0 || zeroPoints > 0 {
        guard scales > 0, zeroPoints > 0, scales == 1 || zeroPoints == 1 || scales == zeroPoints else {
          throw InterpreterError.invalidModel(
            reason: "tensor \(label) has \(scales) quantization scales and \(zeroPoints) zero points")
        }
        try checkQuantizationValues(reader, quantization, type: type, label: label)
      }
      if try reader.u8(quantization, QuantizationField.detailsType) == blockwiseQuantization,
         let details = try reader.table(quantization, QuantizationField.details) {
        let scalesTensor = Int(try reader.i32(details, BlockwiseField.scales))
        let zeroPointsTensor = Int(try reader.i32(details, BlockwiseField.zeroPoints))
        guard (0..<tensorCount).contains(scalesTensor),
              zeroPointsTensor == -1 || (0..<tensorCount).contains(zeroPointsTensor) else {
          throw InterpreterError.invalidModel(
            reason: "tensor \(label) has blockwise quantization tensors \(scalesTensor) and \(zeroPointsTensor); the subgraph has \(tensorCount)")
        }
      }
    }

    // The declared size (an unknown dimension counts as 1).
    var facts = TensorFacts(name: name, type: type, staticShape: hasShape && !dynamic ? dimensions : nil, bytes: 0)
    facts.declaredShape = dynamic ? [] : dimensions
    facts.isSparse = try reader.field(tensor, TensorField.sparsity, width: 4) != nil
    guard let type else { return facts }
    let elements = Tensor.Shape(dimensions.map { max($0, 1) }).elementCount ?? Int.max
    let bytes = type.byteCount(forElementCount: elements) ?? (type.byteCount == nil ? 0 : Int.max)
    guard bytes <= limits.tensorByteCount else {
      throw InterpreterError.tensorTooLarge(name: name ?? "#\(index)", byteCount: bytes, limit: limits.tensorByteCount)
    }
    facts.bytes = bytes
    return facts
  }

  /// Zero points must fit the quantized type and scales of integer tensors must be normal
  /// positive numbers: the kernels (XNNPACK in particular) assume both.
  private static func checkQuantizationValues(_ reader: FlatbufferReader, _ quantization: FlatbufferReader.Table,
                                              type: Tensor.DataType?, label: String) throws {
    let isInteger: Bool = switch type {
    case .int8, .uInt8, .int16, .uInt16, .int32, .uInt32, .int64, .int4, .uInt4, .int2: true
    default: false
    }
    if let scales = try reader.vector(quantization, QuantizationField.scale, elementSize: 4) {
      for index in 0..<scales.count {
        let scale = Float(bitPattern: try reader.u32(scales.start + 4 * index))
        // A normal positive number (zero tolerated on tensors that are not integers): XNNPACK
        // crashes on a zero or subnormal scale of a quantized tensor.
        guard (scale.isNormal && scale > 0) || (scale == 0 && !isInteger) else {
          throw InterpreterError.invalidModel(reason: "tensor \(label) has quantization scale \(scale)")
        }
      }
    }
    let range: ClosedRange<Int64>? = switch type {
    case .int8: -128...127
    case .uInt8: 0...255
    case .int16: -32768...32767
    case .uInt16: 0...65535
    case .int4: -8...7
    case .uInt4: 0...15
    // Quantized int32 tensors are biases, symmetric by TFLite's quantization spec; XNNPACK aborts
    // the process on a bias with a zero point.
    case .int32: 0...0
    default: nil
    }
    guard let range, let zeroPoints = try reader.vector(quantization, QuantizationField.zeroPoint, elementSize: 8) else {
      return
    }
    for index in 0..<zeroPoints.count {
      let zeroPoint = Int64(bitPattern: try reader.u64(zeroPoints.start + 8 * index))
      guard range.contains(zeroPoint) else {
        throw InterpreterError.invalidModel(reason: "tensor \(label) has zero point \(zeroPoint), outside \(range)")
      }
    }
  }
}
