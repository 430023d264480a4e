import Foundation
import HybridAI
import HybridAITools
import TFLite
import TFLiteImage
import Testing

@Suite("SegmentPersonTool")
struct SegmentPersonToolTests {
  /// What the Python LiteRT reference makes of a picture.
  struct Reference {
    /// The model's raw output, [1, h, w, 1] float32.
    let values: [Float]
    /// The tool's post-processing applied to `values`: the PNG the tool must return.
    let png: Data
  }

  /// The model's input (height, width), read from the model.
  private func inputSize(modelPath: String) throws -> (height: Int, width: Int) {
    let interpreter = try Interpreter(modelPath: modelPath)
    try interpreter.allocateTensors()
    let shape = try interpreter.input(at: 0).shape.dimensions
    return (shape[1], shape[2])
  }

  /// The tool's preprocessing of `picture`: RGB, resized to the model's input, float32 in 0…1.
  private func preprocessed(_ picture: Bitmap, height: Int, width: Int) throws -> Data {
    try picture.rgb.resized(width: width, height: height).tensorData(as: .float32(range: .zeroToOne))
  }

  /// The tool's post-processing of the model's output: a gray mask resized back to the
  /// picture's size, as PNG.
  private func postprocessed(_ values: [Float], height: Int, width: Int, picture: Bitmap) throws -> Data {
    try Bitmap(mask: values, width: width, height: height)
      .resized(width: picture.width, height: picture.height).pngData()
  }

  /// Python's LiteRT run on the tool's preprocessed input, then the tool's post-processing.
  private func pythonReference(picture: Bitmap, modelPath: String, threads: Int?) async throws -> Reference {
    let (height, width) = try inputSize(modelPath: modelPath)
    let input = try preprocessed(picture, height: height, width: width)
    let output = try await PythonSegmentReference.run(model: modelPath, input: input, threads: threads)
    #expect(output.shape == [1, height, width, 1])
    return Reference(values: output.values,
                     png: try postprocessed(output.values, height: height, width: width, picture: picture))
  }

  /// The model's raw output from the Swift `Interpreter` (what the tool runs) on the same input.
  private func swiftValues(picture: Bitmap, modelPath: String, threadCount: Int?) throws -> [Float] {
    let interpreter = try Interpreter(modelPath: modelPath, options: Interpreter.Options(threadCount: threadCount))
    try interpreter.allocateTensors()
    let shape = try interpreter.input(at: 0).shape.dimensions
    try interpreter.copy(preprocessed(picture, height: shape[1], width: shape[2]), toInputAt: 0)
    try interpreter.invoke()
    return try interpreter.output(at: 0).data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
  }

  @Test("the mask equals the Python LiteRT reference's for the same picture")
  func matchesPythonReference() async throws {
    let modelPath = try ToolTestSupport.selfieSegmentationModelPath()
    let directory = try ToolTestSupport.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let pictureURL = directory.appendingPathComponent("portrait.png")
    let picture = try Bitmap.samplePortrait(width: 320, height: 240)
    try picture.write(to: pictureURL)

    let progress = ProgressLog()
    let tool = SegmentPersonTool(modelPath: modelPath, allowedDirectories: [directory],
                                 logger: ToolTestSupport.quietLogger)
    let output = try await tool.call(arguments: .init(path: "portrait.png"), context: ToolTestSupport.context(progress))
    let artifact = try #require(output.artifacts.first)
    #expect(artifact.name == "portrait-mask.png")
    #expect(artifact.mimeType == "image/png")
    let png = try #require(artifact.data)

    // The picture as written and read back, exactly as the tool decodes it.
    let decoded = try Bitmap(contentsOf: pictureURL)
    let reference = try await pythonReference(picture: decoded, modelPath: modelPath, threads: tool.threadCount)
    #expect(png == reference.png, "the tool's mask is Python LiteRT's output, post-processed")
    // The raw floats: the Swift Interpreter (the tool's runtime) with the tool's thread count
    // computes bit for bit what Python's LiteRT does.
    let ours = try swiftValues(picture: decoded, modelPath: modelPath, threadCount: tool.threadCount)
    #expect(ours.count == reference.values.count)
    let differing = zip(ours, reference.values).count(where: { $0.bitPattern != $1.bitPattern })
    #expect(differing == 0, "\(differing) of \(ours.count) output floats differ from Python's")
    // The tool's own floats show through its foreground share (mask values above 0.5).
    let foreground = Double(reference.values.count(where: { $0 > 0.5 })) / Double(reference.values.count)
    #expect(output.description.hasSuffix(", \(Int((foreground * 100).rounded()))% person)"), "\(output)")
    #expect(foreground > 0.05 && foreground < 0.95, "a portrait is partly person, partly wall")

    // The comparison can fail: another input (the same tensor reversed) gives another mask.
    let (height, width) = try inputSize(modelPath: modelPath)
    let reversed = try preprocessed(decoded, height: height, width: width).withUnsafeBytes {
      Array($0.bindMemory(to: Float.self).reversed()).withUnsafeBufferPointer { Data(buffer: $0) }
    }
    let other = try await PythonSegmentReference.run(model: modelPath, input: reversed, threads: tool.threadCount)
    #expect(try postprocessed(other.values, height: height, width: width, picture: decoded) != png)

    let mask = try Bitmap(data: png)
    #expect(mask.width == 320 && mask.height == 240)
    // The head's centre is a person; the top-left corner is wall.
    #expect(mask[160, 91, 0] > 128)
    #expect(mask[2, 2, 0] < 128)
    #expect(progress.fractions.last == 1)

    // The same picture through its file URL (as an artifact's URL is given).
    let byURL = try await tool.call(arguments: .init(path: pictureURL.absoluteString), context: ToolTestSupport.context())
    #expect(byURL.artifacts.first?.data == png)
  }

  @Test("paths outside the allowed directory are refused", arguments: [
    "../outside.png", "../../../../etc/passwd", "/etc/passwd", "sub/../../outside.png", "file:///etc/passwd",
    "link/outside.png", "https://example.com/a.png", "a\u{0}.png", "",
  ])
  func refusesOutside(path: String) async throws {
    let root = try ToolTestSupport.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: root) }
    let allowed = root.appendingPathComponent("allowed")
    let outside = root.appendingPathComponent("elsewhere")
    try FileManager.default.createDirectory(at: allowed.appendingPathComponent("sub"), withIntermediateDirectories: true)
    try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
    try Bitmap.samplePortrait(width: 32, height: 24).write(to: root.appendingPathComponent("outside.png"))
    try Bitmap.samplePortrait(width: 32, height: 24).write(to: outside.appendingPathComponent("outside.png"))
    try FileManager.default.createSymbolicLink(at: allowed.appendingPathComponent("link"), withDestinationURL: outside)

    let tool = SegmentPersonTool(modelPath: "/nonexistent.tflite", allowedDirectories: [allowed])
    await #expect(throws: SegmentPersonToolError.self) {
      _ = try await tool.call(arguments: .init(path: path), context: ToolTestSupport.context())
    }
    let directories = AllowedDirectories([allowed])
    #expect(throws: SegmentPersonToolError.self) { try directories.resolve(path) }
  }

  @Test("a path inside resolves, also through ./ and sub/..")
  func resolvesInside() async throws {
    let root = try ToolTestSupport.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: root) }
    let directories = AllowedDirectories([root])
    let expected = root.resolvingSymlinksInPath().appendingPathComponent("a.png").path
    #expect(try directories.resolve("a.png").path == expected)
    #expect(try directories.resolve("./sub/../a.png").path == expected)
    #expect(try directories.resolve(root.appendingPathComponent("a.png").path).path == expected)
  }
}
