import Foundation
import HybridAIProcess
import HybridAITestSupport
import Testing

/// Runs a segmentation model with Google's Python LiteRT interpreter
/// (`ai_edge_litert.interpreter.Interpreter`, from .deps/litert-venv) through
/// Reference/segment_reference.py: the reference `SegmentPersonTool`'s mask must match.
enum PythonSegmentReference {
  /// The model's first output: its shape and float32 values.
  struct Output {
    let shape: [Int]
    let values: [Float]
  }

  static var python: URL { TestRepository.litertPython }
  static var script: URL {
    TestRepository.file("Tests/HybridAIToolsTests/Reference/segment_reference.py")
  }

  /// Runs `model` once on `input` (the raw float32 bytes of its input tensor) with `threads`
  /// threads (nil: LiteRT Python's default).
  static func run(model: String, input: Data, threads: Int? = nil,
                  sourceLocation: SourceLocation = #_sourceLocation) async throws -> Output {
    try #require(FileManager.default.isExecutableFile(atPath: python.path),
                 "the LiteRT reference venv is missing at \(python.path): run scripts/bootstrap (make test does)",
                 sourceLocation: sourceLocation)
    let directory = try ToolTestSupport.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let inputFile = directory.appendingPathComponent("input.bin")
    let outputFile = directory.appendingPathComponent("output.bin")
    try input.write(to: inputFile)
    var arguments = [script.path, model, inputFile.path, outputFile.path]
    if let threads { arguments += ["--threads", String(threads)] }

    let outcome = try await ChildProcess.run(python, arguments)
    try #require(outcome.succeeded, "the reference failed: \(outcome.standardError)", sourceLocation: sourceLocation)
    let outputData = Data(outcome.standardOutput.utf8)
    let shape = String(decoding: outputData, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
      .split(separator: ",").compactMap { Int($0) }
    let bytes = try Data(contentsOf: outputFile)
    let values = bytes.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
    try #require(values.count == shape.reduce(1, *), "output \(bytes.count) bytes for shape \(shape)",
                 sourceLocation: sourceLocation)
    return Output(shape: shape, values: values)
  }
}
