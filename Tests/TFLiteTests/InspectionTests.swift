import Foundation
import Testing
import TFLite

/// What the interpreter reports about the three test models, checked against Python's LiteRT.
@Suite("TFLite inspection")
struct InspectionTests {
  @Test("inputs and outputs match Python's get_input_details / get_output_details", arguments: TestModels.all)
  func matchesReference(model: String) async throws {
    let path = try TestModels.path(model)
    let interpreter = try Interpreter(modelPath: path)
    // The reference needs inputs to run: zeros of the right size.
    let zeros = interpreter.inputDescriptions.map { Data(count: $0.byteCount ?? 0) }
    let reference = try await PythonReference.run(model: path, inputs: zeros)

    #expect(interpreter.inputTensorCount == reference.details.inputs.count)
    #expect(interpreter.outputTensorCount == reference.details.outputs.count)
    for (index, expected) in reference.details.inputs.enumerated() {
      let tensor = try interpreter.input(at: index)
      Self.expect(tensor.name, tensor.dataType, tensor.shape, tensor.quantizationParameters, equal: expected)
      #expect(tensor.data.isEmpty, "no data before allocateTensors()")
    }
    for (index, expected) in reference.details.outputs.enumerated() {
      let description = interpreter.outputDescriptions[index]
      Self.expect(description.name, description.dataType, description.shape, description.quantizationParameters,
                  equal: expected)
    }
    #expect(interpreter.signatureKeys == reference.details.signatures)
  }

  static func expect(_ name: String, _ type: Tensor.DataType, _ shape: Tensor.Shape,
                     _ quantization: Tensor.QuantizationParameters?, equal expected: PythonReference.Details.TensorDetail,
                     sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(name == expected.name, sourceLocation: sourceLocation)
    #expect(type.description == expected.dtype, sourceLocation: sourceLocation)
    #expect(shape.dimensions == expected.shape, sourceLocation: sourceLocation)
    #expect(Double(quantization?.scale ?? 0) == expected.scale, sourceLocation: sourceLocation)
    #expect(quantization?.zeroPoint ?? 0 == expected.zero_point, sourceLocation: sourceLocation)
  }

  @Test("selfie segmentation: float32 1x256x256x3 in, 1x256x256x1 out, no signatures")
  func selfieSegmentation() async throws {
    let interpreter = try Interpreter(modelPath: try TestModels.path(TestModels.selfieSegmentation))
    let input = try interpreter.input(at: 0)
    #expect(input.dataType == .float32)
    #expect(input.shape == [1, 256, 256, 3])
    #expect(input.quantizationParameters == nil)
    #expect(interpreter.outputDescriptions.map(\.shape) == [[1, 256, 256, 1]])
    #expect(interpreter.outputDescriptions.first?.byteCount == 256 * 256 * 4)
    #expect(interpreter.signatures.isEmpty)
  }

  @Test("face detection: two float32 outputs, regressors and classificators")
  func faceDetection() async throws {
    let interpreter = try Interpreter(modelPath: try TestModels.path(TestModels.faceDetection))
    #expect(try interpreter.input(at: 0).shape == [1, 128, 128, 3])
    #expect(interpreter.outputDescriptions.map(\.name) == ["regressors", "classificators"])
    #expect(interpreter.outputDescriptions.map(\.shape) == [[1, 896, 16], [1, 896, 1]])
  }

  @Test("okay_nabu: quantised int8 in, uint8 out, one signature with named tensors")
  func okayNabu() async throws {
    let interpreter = try Interpreter(modelPath: try TestModels.path(TestModels.okayNabu))
    let input = try interpreter.input(at: 0)
    #expect(input.dataType == .int8)
    #expect(input.shape == [1, 3, 40])
    #expect(input.quantizationParameters?.zeroPoint == -128)
    #expect(abs((input.quantizationParameters?.scale ?? 0) - 0.10196078) < 1e-6)
    let output = try #require(interpreter.outputDescriptions.first)
    #expect(output.dataType == .uInt8)
    #expect(output.quantizationParameters == Tensor.QuantizationParameters(scale: 0.00390625, zeroPoint: 0))
    let signature = try #require(interpreter.signatures.first)
    #expect(signature.key == "serving_default")
    #expect(signature.inputs.map(\.name) == ["input_audio"])
    #expect(signature.inputs.map(\.shape) == [[1, 3, 40]])
    #expect(signature.outputs.count == 1)
  }
}
