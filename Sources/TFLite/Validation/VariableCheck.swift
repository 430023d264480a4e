/// Checks that every resource variable is read and assigned with one shape and type.
///
/// A streaming model keeps state in variables: VAR_HANDLE names one (container and shared name),
/// ASSIGN_VARIABLE stores a tensor into it — often in an initialisation subgraph run by
/// CALL_ONCE — and READ_VARIABLE reads it back into a tensor whose shape the file declares. When a
/// corrupted operand makes a subgraph assign a tensor of another shape, the kernels that consume
/// the read value overrun their buffers (measured with ai-edge-litert 2.3.0: heap corruption,
/// abort). Only static shapes are compared.
struct VariableCheck {
  private struct TensorKey: Hashable {
    let subgraph: Int
    let tensor: Int
  }

  private struct Use {
    let handle: TensorKey
    let type: Tensor.DataType?
    let shape: [Int]?
    let isAssignment: Bool
    let label: String
  }

  /// VAR_HANDLE outputs and the variable each names.
  private var names: [TensorKey: String] = [:]
  private var uses: [Use] = []

  /// `BuiltinOptions` union member number of `VarHandleOptions`.
  static let varHandleOptions: UInt8 = 111
  static let varHandle = 142, readVariable = 143, assignVariable = 144

  mutating func record(code: Int, operator op: FlatbufferReader.Table, inputs: [Int], outputs: [Int],
                       tensors: [ModelValidator.TensorFacts], reader: FlatbufferReader,
                       operatorIndex: Int, subgraph: Int) throws {
    let label = "operator \(operatorIndex) of subgraph \(subgraph)"
    switch code {
    case Self.varHandle:
      guard let output = outputs.first, output >= 0 else { return }
      var name = "#\(subgraph):\(output)"
      if try reader.u8(op, 3) == Self.varHandleOptions, let options = try reader.table(op, 4) {
        name = (try reader.string(options, 0) ?? "") + "/" + (try reader.string(options, 1) ?? "")
      }
      names[TensorKey(subgraph: subgraph, tensor: output)] = name
    case Self.readVariable:
      guard let handle = inputs.first, let value = outputs.first, value >= 0, value < tensors.count else { return }
      uses.append(Use(handle: TensorKey(subgraph: subgraph, tensor: handle), type: tensors[value].type,
                      shape: tensors[value].staticShape, isAssignment: false, label: label))
    case Self.assignVariable:
      guard inputs.count >= 2, inputs[1] >= 0, inputs[1] < tensors.count else { return }
      let value = tensors[inputs[1]]
      // A constant's declared shape is authoritative, even when empty (a scalar).
      let shape = value.constantData != nil ? value.declaredShape : value.staticShape
      uses.append(Use(handle: TensorKey(subgraph: subgraph, tensor: inputs[0]), type: value.type,
                      shape: shape, isAssignment: true, label: label))
    default:
      return
    }
  }

  /// Throws when one variable is used with two shapes or two types.
  func finish() throws(InterpreterError) {
    var first: [String: Use] = [:]
    for use in uses {
      guard let name = names[use.handle] else { continue }
      guard let earlier = first[name] else {
        first[name] = use
        continue
      }
      if let type = use.type, let earlierType = earlier.type, type != earlierType {
        throw .invalidModel(reason: "variable '\(name)' is used as \(earlierType) (\(earlier.label)) and \(type) (\(use.label))")
      }
      // An empty shape is unknown for a computed tensor, a scalar for a constant assignment.
      let known = { (use: Use, shape: [Int]) in !shape.isEmpty || use.isAssignment }
      if let shape = use.shape, let earlierShape = earlier.shape, known(use, shape), known(earlier, earlierShape),
         shape != earlierShape {
        throw .invalidModel(
          reason: "variable '\(name)' has shape \(earlierShape) (\(earlier.label)) and \(shape) (\(use.label))")
      }
    }
  }
}
