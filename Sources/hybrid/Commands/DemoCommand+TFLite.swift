import Foundation
import HybridCommandLine
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

    let picture = try Bitmap.samplePortrait(width: 480, height: 360)
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
}
