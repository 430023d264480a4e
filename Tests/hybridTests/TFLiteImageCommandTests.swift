import Foundation
import Testing
import TFLiteImage

/// `hybrid tflite run --image`: decode, resize and normalise a picture into an image model's input.
@Suite("hybrid tflite run --image")
struct TFLiteImageCommandTests {
  let cli = TFLiteCommandTests()

  /// A 320×200 RGB gradient.
  static func picture() throws -> Bitmap {
    var pixels: [UInt8] = []
    for y in 0..<200 {
      for x in 0..<320 { pixels += [UInt8(x * 255 / 319), UInt8(y * 255 / 199), 128] }
    }
    return try Bitmap(width: 320, height: 200, channels: 3, pixels: pixels)
  }

  @Test("--image gives the same output as the same pixels resized and normalised by hand (--input)")
  func imageEqualsManualPreprocessing() async throws {
    let model = try TFLiteCommandTests.model("selfie_segmentation.tflite")
    let directory = try TFLiteCommandTests.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let picture = try Self.picture()
    let png = directory.appendingPathComponent("picture.png")
    try picture.write(to: png)
    let raw = directory.appendingPathComponent("picture.bin")
    try picture.resized(width: 256, height: 256).tensorData(as: .float32(range: .zeroToOne)).write(to: raw)

    let viaImage = directory.appendingPathComponent("via-image.bin"), viaInput = directory.appendingPathComponent("via-input.bin")
    let imageRun = try await cli.run(["run", model, "--image", png.path, "--output", viaImage.path])
    #expect(imageRun.status == 0, "\(imageRun.stderr)")
    let inputRun = try await cli.run(["run", model, "--input", raw.path, "--output", viaInput.path])
    #expect(inputRun.status == 0, "\(inputRun.stderr)")
    let mask = try Data(contentsOf: viaImage)
    #expect(mask.count == 256 * 256 * 4)
    #expect(mask == (try Data(contentsOf: viaInput)))
  }

  @Test("--image on a model without an image input, or an unreadable image: clear errors")
  func imageErrors() async throws {
    let directory = try TFLiteCommandTests.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let png = directory.appendingPathComponent("picture.png")
    try Self.picture().write(to: png)
    let audio = try await cli.run(["run", try TFLiteCommandTests.model("okay_nabu.tflite"), "--image", png.path])
    #expect(audio.status != 0)
    #expect(audio.stderr.contains("--image needs a model with one input of shape [1, H, W, 3]"))

    let notAnImage = directory.appendingPathComponent("text.png")
    try Data("not a picture".utf8).write(to: notAnImage)
    let bad = try await cli.run(["run", try TFLiteCommandTests.model("selfie_segmentation.tflite"), "--image", notAnImage.path])
    #expect(bad.status != 0)
    #expect(bad.stderr.contains("text.png"))
  }
}
