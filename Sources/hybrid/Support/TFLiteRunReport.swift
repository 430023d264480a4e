import Foundation
import TFLite

/// What `hybrid tflite run` prints: timings and a summary of each output.
struct TFLiteRunReport: Encodable {
  struct Timings: Encodable {
    var load: Duration = .zero
    var allocate: Duration = .zero
    var invocations: [Duration] = []

    enum CodingKeys: String, CodingKey {
      case loadMilliseconds, allocateMilliseconds, invokeMilliseconds, firstInvokeMilliseconds,
           medianInvokeMilliseconds, minInvokeMilliseconds, maxInvokeMilliseconds
    }

    func encode(to encoder: any Encoder) throws {
      var container = encoder.container(keyedBy: CodingKeys.self)
      try container.encode(Self.milliseconds(load), forKey: .loadMilliseconds)
      try container.encode(Self.milliseconds(allocate), forKey: .allocateMilliseconds)
      try container.encode(invocations.map(Self.milliseconds), forKey: .invokeMilliseconds)
      try container.encodeIfPresent(invocations.first.map(Self.milliseconds), forKey: .firstInvokeMilliseconds)
      try container.encodeIfPresent(median.map(Self.milliseconds), forKey: .medianInvokeMilliseconds)
      try container.encodeIfPresent(invocations.min().map(Self.milliseconds), forKey: .minInvokeMilliseconds)
      try container.encodeIfPresent(invocations.max().map(Self.milliseconds), forKey: .maxInvokeMilliseconds)
    }

    var median: Duration? {
      guard !invocations.isEmpty else { return nil }
      let sorted = invocations.sorted()
      let middle = sorted.count / 2
      return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }

    static func milliseconds(_ duration: Duration) -> Double {
      let (seconds, attoseconds) = duration.components
      let milliseconds = Double(seconds) * 1e3 + Double(attoseconds) / 1e15
      return (milliseconds * 1000).rounded() / 1000
    }
  }

  struct OutputSummary: Encodable {
    let name: String
    let dataType: String
    let shape: [Int]
    let byteCount: Int
    /// FNV-1a 64 of the bytes, in hex: equal outputs, equal checksums.
    let checksum: String
    /// The first values, as numbers (at most 8).
    let firstValues: [Double]
  }

  /// A failed run, for `--json`.
  struct Failure: Encodable {
    let error: String

    init(_ error: InterpreterError) { self.error = error.description }
  }

  let model: String
  let threads: Int?
  let inputs: Int
  let outputs: [OutputSummary]
  let written: [String]
  let timings: Timings

  init(model: String, threads: Int?, inputs: Int, outputs: [Tensor], written: [String], timings: Timings) {
    self.model = model
    self.threads = threads
    self.inputs = inputs
    self.outputs = outputs.map { tensor in
      OutputSummary(name: tensor.name, dataType: tensor.dataType.description, shape: tensor.shape.dimensions,
                    byteCount: tensor.data.count, checksum: Self.checksum(tensor.data),
                    firstValues: TensorValues.first(8, of: tensor))
    }
    self.written = written
    self.timings = timings
  }

  var text: String {
    var lines: [String] = []
    let ms = Timings.milliseconds
    lines.append(String(format: "load %.3f ms, allocate %.3f ms", ms(timings.load), ms(timings.allocate)))
    if let first = timings.invocations.first, let median = timings.median, let low = timings.invocations.min(),
       let high = timings.invocations.max() {
      if timings.invocations.count == 1 {
        lines.append(String(format: "invoke %.3f ms (threads: %@)", ms(first), threads.map(String.init) ?? "default"))
      } else {
        lines.append(String(format: "invoke ×%d: first %.3f ms, median %.3f ms, min %.3f ms, max %.3f ms (threads: %@)",
                            timings.invocations.count, ms(first), ms(median), ms(low), ms(high),
                            threads.map(String.init) ?? "default"))
      }
    }
    for (index, output) in outputs.enumerated() {
      let values = output.firstValues.map { String(format: "%g", $0) }.joined(separator: ", ")
      lines.append("output \(index) \(output.name): \(output.dataType) \(Tensor.Shape(output.shape)), \(output.byteCount) bytes, fnv1a \(output.checksum), first [\(values)]")
    }
    lines += written.map { "wrote \($0)" }
    return lines.joined(separator: "\n") + "\n"
  }

  static func checksum(_ data: Data) -> String {
    var hash: UInt64 = 0xCBF2_9CE4_8422_2325
    for byte in data {
      hash ^= UInt64(byte)
      hash &*= 0x0000_0100_0000_01B3
    }
    return String(hash, radix: 16)
  }
}
