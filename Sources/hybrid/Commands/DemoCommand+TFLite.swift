import Foundation
import TFLite
import TFLiteImage

extension DemoCommand {
  /// The TensorFlow Lite step: selfie segmentation (the model downloaded from the registry in step 9)
  /// on a generated picture, mask written as a PNG.
  func tourTensorFlowLite(modelPath: String) throws {
    heading("10. TensorFlow Lite on LiteRT: the downloaded model segments a generated picture → a mask PNG")
    let interpreter = try Interpreter(modelPath: modelPath, options: Interpreter.Options(threadCount: 2))
    try interpreter.allocateTensors()
    let input = try interpreter.input(at: 0)
    Terminal.write("  model: \(modelPath)\n  input \(input.name): \(input.dataType) \(input.shape)\n")

    let picture = try Self.samplePortrait(width: 480, height: 360)
    let directory = URL(fileURLWithPath: ".build/demo", isDirectory: true)
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    try picture.write(to: directory.appendingPathComponent("portrait.png"))

    let side = input.shape.dimensions.count == 4 ? (input.shape.dimensions[1], input.shape.dimensions[2]) : (256, 256)
    let resized = try picture.resized(width: side.1, height: side.0)
    try interpreter.copy(resized.tensorData(as: .float32(range: .zeroToOne)), toInputAt: 0)
    let started = ContinuousClock.now
    try interpreter.invoke()
    let elapsed = ContinuousClock.now - started
    let output = try interpreter.output(at: 0)
    let mask = output.data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
    let maskImage = try Bitmap(mask: mask, width: side.1, height: side.0)
    let maskURL = directory.appendingPathComponent("portrait-mask.png")
    try maskImage.write(to: maskURL)
    let foreground = Double(mask.filter { $0 > 0.5 }.count) / Double(max(1, mask.count))
    Terminal.write(String(format: "  invoke: %.1f ms · output %@ %@ · %.0f%% of the mask is foreground (> 0.5)\n",
                          elapsed.seconds * 1000, output.dataType.description, output.shape.description, foreground * 100))
    Terminal.write("  wrote \(directory.path)/portrait.png and \(maskURL.path)\n")
  }

  /// A simple generated portrait: a head and shoulders in front of a sky-blue wall.
  static func samplePortrait(width: Int, height: Int) throws -> Bitmap {
    var pixels = [UInt8](repeating: 0, count: width * height * 3)
    let headCentre = (x: Double(width) / 2, y: Double(height) * 0.38), headRadius = Double(height) * 0.17
    for y in 0..<height {
      for x in 0..<width {
        let dx = Double(x) - headCentre.x, dy = Double(y) - headCentre.y
        let inHead = dx * dx + dy * dy * 0.8 < headRadius * headRadius
        let shoulderHalfWidth = Double(width) * 0.12 + max(0, Double(y) - Double(height) * 0.55) * 0.9
        let inBody = Double(y) > Double(height) * 0.55 && abs(dx) < shoulderHalfWidth
        let colour: (UInt8, UInt8, UInt8) =
          inHead ? (224, 172, 140) : inBody ? (40, 60, 110) : (UInt8(150 + y * 60 / height), 190, 235)
        let offset = (y * width + x) * 3
        pixels[offset] = colour.0
        pixels[offset + 1] = colour.1
        pixels[offset + 2] = colour.2
      }
    }
    return try Bitmap(width: width, height: height, channels: 3, pixels: pixels)
  }
}
