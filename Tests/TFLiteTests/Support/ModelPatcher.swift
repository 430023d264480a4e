import Foundation
import Testing
@testable import TFLite

/// Finds fields inside a .tflite file (with the library's bounds-checked reader) so tests can
/// corrupt exactly one value.
struct ModelPatcher {
  var bytes: [UInt8]

  init(_ data: Data) { bytes = Array(data) }

  var data: Data { Data(bytes) }

  private func withReader<T>(_ body: (FlatbufferReader) throws -> T) rethrows -> T {
    try bytes.withUnsafeBytes { try body(FlatbufferReader(bytes: $0)) }
  }

  /// Tensor `index` of subgraph 0.
  func tensor(_ index: Int) throws -> FlatbufferReader.Table {
    try withReader { reader in
      let model = try reader.rootTable()
      let subgraphs = try #require(try reader.vector(model, 2, elementSize: 4))
      let subgraph = try reader.table(in: subgraphs, at: 0)
      let tensors = try #require(try reader.vector(subgraph, 0, elementSize: 4))
      return try reader.table(in: tensors, at: index)
    }
  }

  /// The tensor index of input 0 of subgraph 0.
  func inputTensorIndex() throws -> Int {
    try withReader { reader in
      let model = try reader.rootTable()
      let subgraphs = try #require(try reader.vector(model, 2, elementSize: 4))
      let subgraph = try reader.table(in: subgraphs, at: 0)
      let inputs = try #require(try reader.vector(subgraph, 1, elementSize: 4))
      return Int(try reader.i32(in: inputs, at: 0))
    }
  }

  /// The position of the first operator of subgraph 0 that stores its `opcode_index`.
  func opcodeIndexPosition() throws -> Int {
    try withReader { reader in
      let model = try reader.rootTable()
      let subgraphs = try #require(try reader.vector(model, 2, elementSize: 4))
      let subgraph = try reader.table(in: subgraphs, at: 0)
      let operators = try #require(try reader.vector(subgraph, 3, elementSize: 4))
      for index in 0..<operators.count {
        let op = try reader.table(in: operators, at: index)
        if let position = try reader.field(op, 0, width: 4) { return position }
      }
      throw PatchError.notFound("an operator with an opcode_index")
    }
  }

  /// The shape vector of tensor `index` of subgraph 0.
  func shapeVector(ofTensor index: Int) throws -> FlatbufferReader.Vector {
    let tensor = try tensor(index)
    return try withReader { reader in try #require(try reader.vector(tensor, 0, elementSize: 4)) }
  }

  /// The position of the vtable entry of field `slot` of the quantization table of tensor `index`.
  func quantizationVtableEntry(ofTensor index: Int, slot: Int) throws -> Int {
    let tensor = try tensor(index)
    return try withReader { reader in
      let quantization = try #require(try reader.table(tensor, 4))
      return quantization.vtable + 4 + 2 * slot
    }
  }

  mutating func setUInt32(_ value: UInt32, at position: Int) {
    withUnsafeBytes(of: value.littleEndian) { bytes.replaceSubrange(position..<(position + 4), with: $0) }
  }

  mutating func setUInt16(_ value: UInt16, at position: Int) {
    withUnsafeBytes(of: value.littleEndian) { bytes.replaceSubrange(position..<(position + 2), with: $0) }
  }

  enum PatchError: Error { case notFound(String) }
}

