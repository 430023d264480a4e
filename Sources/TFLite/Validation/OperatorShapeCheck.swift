/// Checks operators against what their kernels take for granted — present operands, resource
/// handles of the resource type, and declared shapes that agree with what the operator computes
/// — for the cases where a contradiction was seen to corrupt memory. XNNPACK plans work from the shapes the file
/// declares (it folds DEQUANTIZE of constant weights, sizes slices, …); a file whose declared
/// shapes contradict the operator makes it read or write past a buffer. Measured with
/// ai-edge-litert 2.3.0, and Python's interpreter crashes the same way: a corrupted dimension of
/// a DEQUANTIZE output (SIGSEGV), a STRIDED_SLICE whose masks no longer match its declared output
/// (heap corruption, abort on free). Only static shapes and constant operands are compared;
/// anything dynamic is left to the runtime.
enum OperatorShapeCheck {
  /// Builtin operators (TFLite schema numbers) whose output 0 has the shape of input 0.
  static let sameShapeOperators: [Int: String] = [
    6: "DEQUANTIZE", 8: "FLOOR", 14: "LOGISTIC", 19: "RELU", 20: "RELU_N1_TO_1", 21: "RELU6",
    28: "TANH", 47: "EXP", 53: "CAST", 59: "NEG", 66: "SIN", 73: "LOG", 75: "SQRT", 76: "RSQRT",
    87: "LOGICAL_NOT", 92: "SQUARE", 93: "ZEROS_LIKE", 98: "LEAKY_RELU", 101: "ABS", 104: "CEIL",
    108: "COS", 111: "ELU", 114: "QUANTIZE", 116: "ROUND", 117: "HARD_SWISH", 150: "GELU",
    152: "RELU_0_TO_1", 158: "SIGN",
  ]
  static let stridedSlice = 45
  /// `BuiltinOptions` union member number of `StridedSliceOptions`.
  static let stridedSliceOptions: UInt8 = 32

  /// Operators that take optional inputs (-1 for "absent") and where: the bias of convolutions
  /// and fully connected layers (CONV_2D, DEPTHWISE_CONV_2D, FULLY_CONNECTED, CONV_3D: input 2;
  /// TRANSPOSE_CONV, CONV_3D_TRANSPOSE: input 3); any input but the first of the recurrent
  /// layers and custom operators. Kernels dereference every other operand (a STRIDED_SLICE
  /// without `end` or a DEPTHWISE_CONV_2D without a filter crashes the process).
  static func isOptionalInput(code: Int, position: Int) -> Bool {
    switch code {
    case 3, 4, 9, 132: position == 2
    case 67, 141: position == 3
    case 16, 24, 27, 32, 35, 44, 46, 52: position >= 1
    default: false
    }
  }

  /// Resource-variable operators (VAR_HANDLE 142, READ_VARIABLE 143, ASSIGN_VARIABLE 144): the
  /// handle operand must be a RESOURCE tensor, or the kernels read another tensor as one.
  static let resourceOutputOperators: Set<Int> = [142]
  static let resourceInputOperators: Set<Int> = [143, 144]

  /// Exact operand counts (inputs, outputs) of operators whose kernels index operands without
  /// checking how many there are: CONV_2D and DEPTHWISE_CONV_2D (input, filter, bias — an absent
  /// bias is -1, not a missing operand), STRIDED_SLICE, and the resource-variable operators.
  static let arity: [Int: (inputs: Int, outputs: Int)] = [
    3: (3, 1), 4: (3, 1), 45: (4, 1), 142: (0, 1), 143: (1, 1), 144: (2, 0),
  ]

  static func check(code: Int, operator op: FlatbufferReader.Table, inputs: [Int], outputs: [Int],
                    tensors: [ModelValidator.TensorFacts], reader: FlatbufferReader,
                    operatorIndex: Int, subgraph: Int) throws {
    func facts(_ index: Int?) -> ModelValidator.TensorFacts? {
      guard let index, index >= 0, index < tensors.count else { return nil }
      return tensors[index]
    }
    let label = "operator \(operatorIndex) (builtin \(code)) of subgraph \(subgraph)"
    if let expected = arity[code], expected.inputs != inputs.count || expected.outputs != outputs.count {
      throw InterpreterError.invalidModel(
        reason: "\(label) has \(inputs.count) inputs and \(outputs.count) outputs; it takes \(expected.inputs) and \(expected.outputs)")
    }
    for (position, input) in inputs.enumerated() where input == -1 && !isOptionalInput(code: code, position: position) {
      throw InterpreterError.invalidModel(reason: "\(label) has no input \(position), which it requires")
    }
    if outputs.contains(-1) {
      throw InterpreterError.invalidModel(reason: "\(label) has an absent output")
    }
    if resourceInputOperators.contains(code), facts(inputs.first)?.type != .resource {
      throw InterpreterError.invalidModel(reason: "\(label) needs a resource handle as input 0")
    }
    if resourceOutputOperators.contains(code), facts(outputs.first)?.type != .resource {
      throw InterpreterError.invalidModel(reason: "\(label) needs a resource tensor as output 0")
    }
    guard let input = facts(inputs.first), let output = facts(outputs.first),
          let inputShape = input.staticShape, let outputShape = output.staticShape else { return }
    let expected: [Int]
    let name: String
    if let sameShape = sameShapeOperators[code] {
      guard !inputShape.isEmpty, !outputShape.isEmpty else { return }
      expected = inputShape
      name = sameShape
    } else if code == stridedSlice, inputs.count >= 4,
              let computed = try stridedSliceShape(op, input: inputShape, begin: facts(inputs[1]),
                                                   end: facts(inputs[2]), strides: facts(inputs[3]), reader: reader) {
      expected = computed
      name = "STRIDED_SLICE"
    } else {
      return
    }
    guard expected == outputShape else {
      throw InterpreterError.invalidModel(
        reason: "operator \(operatorIndex) (\(name)) of subgraph \(subgraph) computes shape \(expected) but declares \(outputShape)")
    }
  }

  /// The output shape of a STRIDED_SLICE with constant int32 begin, end and strides and no
  /// ellipsis, new-axis or offset (TFLite's strided_slice.cc and strided_slice_logic.h), or nil
  /// when the operator is outside that case.
  static func stridedSliceShape(_ op: FlatbufferReader.Table, input: [Int], begin: ModelValidator.TensorFacts?,
                                end: ModelValidator.TensorFacts?, strides: ModelValidator.TensorFacts?,
                                reader: FlatbufferReader) throws -> [Int]? {
    guard try reader.u8(op, 3) == stridedSliceOptions, let options = try reader.table(op, 4) else { return nil }
    let beginMask = try reader.i32(options, 0)
    let endMask = try reader.i32(options, 1)
    let ellipsisMask = try reader.i32(options, 2)
    let newAxisMask = try reader.i32(options, 3)
    let shrinkMask = try reader.i32(options, 4)
    let offset = try reader.u8(options, 5) != 0
    guard ellipsisMask == 0, newAxisMask == 0, !offset else { return nil }
    func values(_ tensor: ModelValidator.TensorFacts?) throws -> [Int]? {
      guard let tensor, tensor.type == .int32, let data = tensor.constantData, data.count == 4 * input.count else {
        return nil
      }
      return try (0..<input.count).map { Int(try reader.i32(data.start + 4 * $0)) }
    }
    guard let begins = try values(begin), let ends = try values(end), let steps = try values(strides) else { return nil }
    var shape: [Int] = []
    for axis in 0..<input.count {
      let size = input[axis]
      let stride = steps[axis]
      guard stride != 0, stride != Int(Int32.min) else { return nil }
      let bit = Int32(truncatingIfNeeded: 1 << axis)
      var start = begins[axis]
      if start < 0 { start += size }
      start = stride > 0 ? min(max(start, 0), size) : min(max(start, -1), size - 1)
      if beginMask & bit != 0 { start = stride > 0 ? 0 : size - 1 }
      if shrinkMask & bit != 0 { continue }
      var stop = ends[axis]
      if stop < 0 { stop += size }
      stop = stride > 0 ? min(max(stop, 0), size) : min(max(stop, -1), size - 1)
      if endMask & bit != 0 { stop = stride > 0 ? size : -1 }
      let extent = stop - start
      let dimension: Int
      if (extent < 0) != (stride < 0) {
        dimension = 0
      } else if stride < 0 {
        dimension = (extent + 1) / stride + 1
      } else {
        dimension = extent == 0 ? 0 : (extent - 1) / stride + 1
      }
      shape.append(dimension)
    }
    return shape
  }
}
