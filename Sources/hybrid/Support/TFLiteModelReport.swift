import Foundation
import TFLite

/// What `hybrid tflite inspect` prints: a model's inputs, outputs and signatures.
struct TFLiteModelReport: Encodable {
  struct TensorReport: Encodable {
    let index: Int
    let name: String
    let dataType: String
    let shape: [Int]
    let byteCount: Int?
    let scale: Float?
    let zeroPoint: Int?

    init(index: Int, _ description: TensorDescription) {
      self.index = index
      name = description.name
      dataType = description.dataType.description
      shape = description.shape.dimensions
      byteCount = description.byteCount
      scale = description.quantizationParameters?.scale
      zeroPoint = description.quantizationParameters?.zeroPoint
    }

    var line: String {
      var text = "  \(index)  \(name)  \(dataType) \(Tensor.Shape(shape))"
      if let byteCount { text += "  \(byteCount) bytes" }
      if let scale, let zeroPoint { text += "  quantized: scale \(scale), zero point \(zeroPoint)" }
      return text
    }
  }

  struct SignatureReport: Encodable {
    let key: String
    let inputs: [TensorReport]
    let outputs: [TensorReport]
  }

  let model: String
  let byteCount: Int?
  let runtime: String?
  let inputs: [TensorReport]
  let outputs: [TensorReport]
  let signatures: [SignatureReport]

  init(path: String, interpreter: Interpreter) {
    model = path
    byteCount = (try? FileManager.default.attributesOfItem(atPath: URL(fileURLWithPath: path).resolvingSymlinksInPath().path)[.size] as? Int) ?? nil
    runtime = try? LiteRTRuntime.shared().libraryPath
    inputs = interpreter.inputDescriptions.enumerated().map { TensorReport(index: $0.offset, $0.element) }
    outputs = interpreter.outputDescriptions.enumerated().map { TensorReport(index: $0.offset, $0.element) }
    signatures = interpreter.signatures.map { signature in
      SignatureReport(key: signature.key,
                      inputs: signature.inputs.enumerated().map { TensorReport(index: $0.offset, $0.element) },
                      outputs: signature.outputs.enumerated().map { TensorReport(index: $0.offset, $0.element) })
    }
  }

  var text: String {
    var lines = ["model: \(model)" + (byteCount.map { " (\($0) bytes)" } ?? "")]
    if let runtime { lines.append("runtime: \(runtime)") }
    lines.append("inputs:")
    lines += inputs.map(\.line)
    lines.append("outputs:")
    lines += outputs.map(\.line)
    if signatures.isEmpty {
      lines.append("signatures: none")
    } else {
      lines.append("signatures:")
      for signature in signatures {
        lines.append("  \(signature.key)")
        lines.append("    inputs:")
        lines += signature.inputs.map { "  " + $0.line }
        lines.append("    outputs:")
        lines += signature.outputs.map { "  " + $0.line }
      }
    }
    return lines.joined(separator: "\n") + "\n"
  }
}
