import Foundation
import HybridAITestSupport
import Testing
import TFLite

/// The Swift interpreter's outputs equal Python's `ai_edge_litert.interpreter.Interpreter` byte for
/// byte on the same deterministic pseudo-random inputs and thread count.
@Suite("TFLite outputs equal the Python reference")
struct ReferenceTests {
  /// Runs `model` in Swift on `frames` consecutive inputs (each input's Data holds the frames back
  /// to back) and returns each output's bytes, the frames back to back.
  static func runSwift(_ path: String, inputs: [Data], threads: Int?, frames: Int = 1) throws -> [Data] {
    let interpreter = try Interpreter(modelPath: path, options: .init(threadCount: threads))
    try interpreter.allocateTensors()
    var outputs = [Data](repeating: Data(), count: interpreter.outputTensorCount)
    for frame in 0..<frames {
      for (index, data) in inputs.enumerated() {
        let size = data.count / frames
        try interpreter.copy(data.subdata(in: (frame * size)..<((frame + 1) * size)), toInputAt: index)
      }
      try interpreter.invoke()
      for index in outputs.indices { outputs[index].append(try interpreter.output(at: index).data) }
    }
    return outputs
  }

  @Test("selfie segmentation (float32), 1 and 2 threads", arguments: [1, 2])
  func selfieSegmentation(threads: Int) async throws {
    let path = try TestModels.path(TestModels.selfieSegmentation)
    var random = SeededRandom(seed: 20_260_001)
    let input = Data(random.float32Bytes(count: 256 * 256 * 3))
    let swift = try Self.runSwift(path, inputs: [input], threads: threads)
    let python = try await PythonReference.run(model: path, inputs: [input], threads: threads)
    #expect(swift.count == 1)
    #expect(swift.first?.count == 256 * 256 * 4)
    #expect(swift == python.outputs, "the mask differs from Python's")
    // Not a degenerate comparison: the mask varies.
    let values = swift[0].withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
    #expect(Set(values).count > 1000)
  }

  @Test("face detection (float32 in [-1, 1], two outputs)")
  func faceDetection() async throws {
    let path = try TestModels.path(TestModels.faceDetection)
    var random = SeededRandom(seed: 20_260_002)
    let input = Data(random.float32Bytes(count: 128 * 128 * 3, in: -1...1))
    let swift = try Self.runSwift(path, inputs: [input], threads: 2)
    let python = try await PythonReference.run(model: path, inputs: [input], threads: 2)
    #expect(swift.map(\.count) == [896 * 16 * 4, 896 * 4])
    #expect(swift == python.outputs)
  }

  @Test("okay_nabu (int8 in, uint8 out, streaming state) over 100 consecutive frames")
  func okayNabu() async throws {
    let path = try TestModels.path(TestModels.okayNabu)
    var random = SeededRandom(seed: 20_260_003)
    let frames = 100
    // Low feature values make the wake-word model's output move off zero.
    let input = Data(random.int8Bytes(count: frames * 3 * 40, in: -128...(-61)))
    let swift = try Self.runSwift(path, inputs: [input], threads: 1, frames: frames)
    let python = try await PythonReference.run(model: path, inputs: [input], threads: 1, frames: frames)
    #expect(swift.first?.count == frames)
    #expect(swift == python.outputs, "the uint8 scores differ from Python's")
    #expect((swift.first ?? Data()).contains { $0 != 0 }, "some frames score above zero")
  }

  @Test("a signature run by name gives the same bytes as invoke()")
  func signatureRun() async throws {
    let path = try TestModels.path(TestModels.okayNabu)
    var random = SeededRandom(seed: 20_260_004)
    let frames = (0..<60).map { _ in Data(random.int8Bytes(count: 120, in: -128...(-61))) }

    let byIndex = try Interpreter(modelPath: path)
    try byIndex.allocateTensors()
    let bySignature = try Interpreter(modelPath: path)
    let outputName = try #require(bySignature.signatures.first?.outputs.first?.name)
    for frame in frames {
      try byIndex.copy(frame, toInputAt: 0)
      try byIndex.invoke()
      let outputs = try bySignature.invoke(signature: "serving_default", inputs: ["input_audio": frame])
      #expect(outputs[outputName]?.data == (try byIndex.output(at: 0).data))
      #expect(outputs[outputName]?.dataType == .uInt8)
    }
  }

  /// An invoke registers the input buffers with the runtime only when they are not already
  /// registered (`CompiledModel.run`); the other invokes pass them as null. Every invoke must still
  /// see the bytes copied just before it, also after the buffers were replaced.
  @Test("every invoke reads the current inputs: consecutive runs, re-allocation, a resize")
  func inputsAreReadEveryInvoke() async throws {
    let path = try TestModels.path(TestModels.faceDetection)
    var random = SeededRandom(seed: 20_260_006)
    let frames = (0..<5).map { _ in Data(random.float32Bytes(count: 128 * 128 * 3, in: -1...1)) }
    // Each frame on an interpreter of its own: its only run registers the buffers.
    let expected = try frames.map { frame in
      try Self.runSwift(path, inputs: [frame], threads: 2)
    }
    #expect(Set(expected).count == frames.count, "the frames give different outputs")

    let interpreter = try Interpreter(modelPath: path, options: .init(threadCount: 2))
    func outputs(after frame: Data) throws -> [Data] {
      try interpreter.copy(frame, toInputAt: 0)
      try interpreter.invoke()
      return try (0..<interpreter.outputTensorCount).map { try interpreter.output(at: $0).data }
    }
    try interpreter.allocateTensors()
    #expect(try outputs(after: frames[0]) == expected[0])
    #expect(try outputs(after: frames[1]) == expected[1], "a second invoke on the same buffers")
    #expect(try outputs(after: frames[2]) == expected[2], "a third one")
    // New buffers (the old ones are freed): the next invoke must register them.
    try interpreter.allocateTensors()
    #expect(try outputs(after: frames[3]) == expected[3], "after allocateTensors() again")
    try interpreter.resizeInput(at: 0, to: [1, 128, 128, 3])
    try interpreter.allocateTensors()
    #expect(try outputs(after: frames[4]) == expected[4], "after a resize to the same shape")
    #expect(try outputs(after: frames[0]) == expected[0], "and again on those buffers")
  }

  @Test("resizing inputs: face detection at 256x256 and a batch of two selfies match Python")
  func resize() async throws {
    var random = SeededRandom(seed: 20_260_005)
    for (model, shape, outputShapes) in [
      (TestModels.faceDetection, [1, 256, 256, 3], [[1, 3584, 16], [1, 3584, 1]]),
      (TestModels.selfieSegmentation, [2, 256, 256, 3], [[2, 256, 256, 1]]),
    ] {
      let path = try TestModels.path(model)
      let interpreter = try Interpreter(modelPath: path)
      try interpreter.allocateTensors()
      try interpreter.resizeInput(at: 0, to: Tensor.Shape(shape))
      #expect(throws: InterpreterError.allocateTensorsRequired) { try interpreter.invoke() }
      try interpreter.allocateTensors()
      #expect(try interpreter.input(at: 0).shape.dimensions == shape)
      let input = Data(random.float32Bytes(count: shape.reduce(1, *), in: -1...1))
      try interpreter.copy(input, toInputAt: 0)
      try interpreter.invoke()
      let outputs = try (0..<interpreter.outputTensorCount).map { try interpreter.output(at: $0) }
      #expect(outputs.map(\.shape.dimensions) == outputShapes)
      let python = try await PythonReference.run(model: path, inputs: [input], resize: [shape])
      #expect(outputs.map(\.data) == python.outputs, "\(model) resized to \(shape)")
    }
  }

  @Test("a resize the model's operators refuse is a typed error, as in Python")
  func refusedResize() async throws {
    let interpreter = try Interpreter(modelPath: try TestModels.path(TestModels.selfieSegmentation))
    try interpreter.resizeInput(at: 0, to: [1, 128, 128, 3])
    #expect {
      try interpreter.allocateTensors()
    } throws: { error in
      guard case .failedToAllocateTensors = error as? InterpreterError else { return false }
      return true
    }
    #expect(throws: InterpreterError.allocateTensorsRequired) { try interpreter.invoke() }
  }
}
