import Foundation
import HybridAIProcess
import HybridAITestSupport
import Testing

/// Runs a model with Google's Python LiteRT interpreter (`ai_edge_litert.interpreter.Interpreter`,
/// from .deps/litert-venv) through Reference/litert_reference.py: the reference the Swift
/// interpreter must match byte for byte.
enum PythonReference {
  /// What the reference reports about a model's inputs and outputs.
  struct Details: Decodable {
    struct TensorDetail: Decodable {
      let name: String
      let dtype: String
      let shape: [Int]
      let scale: Double
      let zero_point: Int
    }
    let inputs: [TensorDetail]
    let outputs: [TensorDetail]
    let signatures: [String]
  }

  struct Result {
    /// Each output's bytes, the frames' outputs back to back.
    let outputs: [Data]
    let details: Details
  }

  static var python: URL { TestRepository.litertPython }
  static var script: URL {
    TestRepository.file("Tests/TFLiteTests/Reference/litert_reference.py")
  }

  /// Runs `model` on `inputs` (one Data per input, each `frames` tensors back to back).
  static func run(model: String, inputs: [Data], threads: Int? = nil, frames: Int = 1,
                  resize: [[Int]] = [], sourceLocation: SourceLocation = #_sourceLocation) async throws -> Result {
    try #require(FileManager.default.isExecutableFile(atPath: python.path),
                 "the LiteRT reference venv is missing at \(python.path): run scripts/bootstrap (make test does)",
                 sourceLocation: sourceLocation)
    let directory = try TestModels.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    var arguments = [script.path, model, directory.appendingPathComponent("out").path, "--frames", String(frames)]
    if let threads { arguments += ["--threads", String(threads)] }
    for shape in resize { arguments += ["--resize", shape.map(String.init).joined(separator: ",")] }
    for (index, data) in inputs.enumerated() {
      let file = directory.appendingPathComponent("input-\(index).bin")
      try data.write(to: file)
      arguments += ["--input", file.path]
    }
    let outcome = try await ChildProcess(executable: python, arguments: arguments).run()
    try #require(outcome.succeeded, "the reference failed: \(outcome.standardError)", sourceLocation: sourceLocation)
    let out = directory.appendingPathComponent("out")
    let details = try JSONDecoder().decode(Details.self, from: Data(contentsOf: out.appendingPathComponent("details.json")))
    let outputs = try (0..<details.outputs.count).map {
      try Data(contentsOf: out.appendingPathComponent("output-\($0).bin"))
    }
    return Result(outputs: outputs, details: details)
  }
}
