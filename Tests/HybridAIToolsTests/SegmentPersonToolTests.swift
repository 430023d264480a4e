import Foundation
import HybridAI
import HybridAITools
import TFLite
import TFLiteImage
import Testing

@Suite("SegmentPersonTool")
struct SegmentPersonToolTests {
  /// The mask computed here with the Interpreter directly, on the same preprocessed input.
  private func referenceMask(pictureAt url: URL, modelPath: String) throws -> Data {
    let picture = try Bitmap(contentsOf: url)
    let interpreter = try Interpreter(modelPath: modelPath)
    try interpreter.allocateTensors()
    let shape = try interpreter.input(at: 0).shape.dimensions
    let (height, width) = (shape[1], shape[2])
    let input = try picture.rgb.resized(width: width, height: height).tensorData(as: .float32(range: .zeroToOne))
    try interpreter.copy(input, toInputAt: 0)
    try interpreter.invoke()
    let values = try interpreter.output(at: 0).data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
    return try Bitmap(mask: values, width: width, height: height)
      .resized(width: picture.width, height: picture.height).pngData()
  }

  @Test("the mask equals the Interpreter run directly on the same input")
  func matchesReference() async throws {
    let modelPath = try ToolTestSupport.selfieSegmentationModelPath()
    let directory = try ToolTestSupport.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let pictureURL = directory.appendingPathComponent("portrait.png")
    try Bitmap.samplePortrait(width: 320, height: 240).write(to: pictureURL)

    let progress = ProgressLog()
    let tool = SegmentPersonTool(modelPath: modelPath, allowedDirectories: [directory])
    let output = try await tool.call(arguments: .init(path: "portrait.png"), context: ToolTestSupport.context(progress))
    let artifact = try #require(output.artifacts.first)
    #expect(artifact.name == "portrait-mask.png")
    #expect(artifact.mimeType == "image/png")
    let png = try #require(artifact.data)
    #expect(png == (try referenceMask(pictureAt: pictureURL, modelPath: modelPath)))
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
  func resolvesInside() throws {
    let root = try ToolTestSupport.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: root) }
    let directories = AllowedDirectories([root])
    let expected = root.resolvingSymlinksInPath().appendingPathComponent("a.png").path
    #expect(try directories.resolve("a.png").path == expected)
    #expect(try directories.resolve("./sub/../a.png").path == expected)
    #expect(try directories.resolve(root.appendingPathComponent("a.png").path).path == expected)
  }
}
