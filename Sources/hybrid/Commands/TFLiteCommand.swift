import ArgumentParser
import Foundation
import HybridAI
import HybridCommandLine
import TFLite
import TFLiteImage

/// `hybrid tflite` — look inside a TensorFlow Lite model and run it on the CPU with LiteRT.
struct TFLiteCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "tflite",
    abstract: "Inspect or run a TensorFlow Lite model (LiteRT, CPU).",
    subcommands: [Inspect.self, Run.self])

  /// `hybrid tflite inspect MODEL`
  struct Inspect: ParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Print a model's inputs, outputs (types, shapes, quantization) and signatures.")

    @Argument(help: "The .tflite file.")
    var model: String

    @Flag(name: .long, help: "Print one JSON object instead of text.")
    var json = false

    func run() throws {
      let interpreter: Interpreter
      do {
        interpreter = try Interpreter(modelPath: model)
      } catch {
        Terminal.status("error: \(error)")
        throw ExitCode.failure
      }
      let report = TFLiteModelReport(path: model, interpreter: interpreter)
      if json { JSONOutput.print(report) } else { Terminal.write(report.text) }
    }
  }

  /// `hybrid tflite run MODEL (--input FILE… | --random SEED) [--output FILE | --output-dir DIR] …`
  struct Run: ParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Run a model on raw input bytes or seeded random inputs, and time it.",
      discussion: """
        --input takes the raw bytes of input 0 (the tensor's element type, row-major, little-endian), \
        then of input 1, and so on: one file per input, in order. --random SEED fills every input \
        with reproducible pseudo-random values instead (floats uniform in [0, 1), integers uniform \
        over their type). --output writes the raw bytes of output 0; --output-dir writes every \
        output as DIR/NAME.bin (the tensor's name with characters other than letters, digits, \
        '.', '_' and '-' replaced by '_'). Timings (load, allocate, each invoke) go to standard \
        output, or into the --json object.
        """)

    @Argument(help: "The .tflite file.")
    var model: String

    @Option(name: .long, parsing: .upToNextOption, help: "Raw input files: input 0, then input 1, …")
    var input: [String] = []

    @Option(name: .long, help: "Fill the inputs with pseudo-random values from this seed.")
    var random: UInt64?

    @Option(name: .long, help: "A PNG or JPEG for an image model's single input [1, H, W, 3]: resized to H×W, RGB.")
    var image: String?

    @Option(name: .long, help: "With --image and a float32 input: pixel range zero-to-one or minus-one-to-one.")
    var pixelRange: PixelRange = .zeroToOne

    enum PixelRange: String, ExpressibleByArgument, CaseIterable {
      case zeroToOne = "zero-to-one", minusOneToOne = "minus-one-to-one"
    }

    @Option(name: .long, help: "Write the raw bytes of output 0 to this file.")
    var output: String?

    @Option(name: .customLong("output-dir"), help: "Write every output to DIR/NAME.bin.")
    var outputDirectory: String?

    @Option(name: .long, help: "CPU threads (default: the runtime's, 1).")
    var threads: Int?

    @Option(name: .long, help: "Invoke this many times (timings: first, median, min, max).")
    var `repeat` = 1

    @Flag(name: .long, help: "Print one JSON object instead of text.")
    var json = false

    @Flag(name: .long, help: "Show the runtime's own messages on standard error.")
    var verbose = false

    func validate() throws {
      guard [!input.isEmpty, random != nil, image != nil].filter({ $0 }).count == 1 else {
        throw ValidationError("give one of --input FILE…, --random SEED or --image FILE")
      }
      guard output == nil || outputDirectory == nil else {
        throw ValidationError("give --output or --output-dir, not both")
      }
      guard `repeat` >= 1 else { throw ValidationError("--repeat must be at least 1") }
      if let threads, threads < 1 { throw ValidationError("--threads must be at least 1") }
    }

    func run() throws {
      do {
        let report = try execute()
        if json { JSONOutput.print(report) } else { Terminal.write(report.text) }
      } catch let error as InterpreterError {
        if json { JSONOutput.print(TFLiteRunReport.Failure(error)) }
        Terminal.status("error: \(error)")
        throw ExitCode.failure
      } catch let error as CommandFailure {
        Terminal.status("error: \(error.message)")
        throw ExitCode.failure
      }
    }

    /// A failure outside the interpreter (a file that cannot be read or written).
    struct CommandFailure: Error { let message: String }

    private func execute() throws -> TFLiteRunReport {
      let clock = ContinuousClock()
      var timings = TFLiteRunReport.Timings()

      let started = clock.now
      let interpreter = try StandardErrorCapture.quiet(verbose: verbose) {
        try Interpreter(modelPath: model, options: .init(threadCount: threads))
      }
      timings.load = clock.now - started

      let allocating = clock.now
      try StandardErrorCapture.quiet(verbose: verbose) { try interpreter.allocateTensors() }
      timings.allocate = clock.now - allocating

      let inputs = try inputData(for: interpreter)
      for (index, data) in inputs.enumerated() { try interpreter.copy(data, toInputAt: index) }

      for run in 0..<`repeat` {
        let invoking = clock.now
        if run == 0 {
          try StandardErrorCapture.quiet(verbose: verbose) { try interpreter.invoke() }
        } else {
          try interpreter.invoke()
        }
        timings.invocations.append(clock.now - invoking)
      }

      let outputs = try (0..<interpreter.outputTensorCount).map { try interpreter.output(at: $0) }
      var written: [String] = []
      if let output, let first = outputs.first {
        try write(first.data, to: output)
        written.append(output)
      }
      if let outputDirectory {
        do {
          try FileManager.default.createDirectory(atPath: outputDirectory, withIntermediateDirectories: true)
        } catch {
          throw CommandFailure(message: "cannot make the folder \(outputDirectory) for --output-dir: \(FileSystemErrorText.describe(error))")
        }
        var used = Set<String>()
        for (index, tensor) in outputs.enumerated() {
          var name = Self.fileName(for: tensor.name, index: index)
          if !used.insert(name).inserted { name = "\(index)-\(name)"; used.insert(name) }
          let path = (outputDirectory as NSString).appendingPathComponent(name + ".bin")
          try write(tensor.data, to: path)
          written.append(path)
        }
      }
      return TFLiteRunReport(model: model, threads: threads, inputs: inputs.count, outputs: outputs,
                             written: written, timings: timings)
    }

    private func inputData(for interpreter: Interpreter) throws -> [Data] {
      let tensors = try (0..<interpreter.inputTensorCount).map { try interpreter.input(at: $0) }
      if let seed = random {
        var generator = TFLiteRandomInput(seed: seed)
        return try tensors.map { tensor in
          guard let data = generator.data(for: tensor) else {
            throw CommandFailure(message: "cannot make random data for input '\(tensor.name)' (\(tensor.dataType))")
          }
          return data
        }
      }
      if let image {
        return [try imageData(image, for: tensors)]
      }
      guard input.count == tensors.count else {
        throw CommandFailure(message: "the model has \(tensors.count) input(s); got \(input.count) --input file(s)")
      }
      return try input.map { path in
        guard let data = FileManager.default.contents(atPath: path) else {
          throw CommandFailure(message: "cannot read the input file \(path)")
        }
        return data
      }
    }

    /// The image decoded, resized to the model's input size and written as its element type.
    private func imageData(_ path: String, for tensors: [Tensor]) throws -> Data {
      guard tensors.count == 1, let tensor = tensors.first, tensor.shape.dimensions.count == 4,
            tensor.shape.dimensions[0] == 1, tensor.shape.dimensions[3] == 3 else {
        throw CommandFailure(message: "--image needs a model with one input of shape [1, H, W, 3]")
      }
      let format: TensorPixelFormat
      switch tensor.dataType {
      case .float32: format = .float32(range: pixelRange == .zeroToOne ? .zeroToOne : .minusOneToOne)
      case .uInt8: format = .uint8
      case .int8: format = .int8
      default: throw CommandFailure(message: "--image cannot fill an input of type \(tensor.dataType)")
      }
      do {
        let bitmap = try Bitmap(contentsOf: URL(fileURLWithPath: path))
        return try bitmap.resized(width: tensor.shape.dimensions[2], height: tensor.shape.dimensions[1]).tensorData(as: format)
      } catch {
        throw CommandFailure(message: "\(path): \(error)")
      }
    }

    private func write(_ data: Data, to path: String) throws {
      do {
        try data.write(to: URL(fileURLWithPath: path))
      } catch {
        throw CommandFailure(message: "cannot write \(path): \(FileSystemErrorText.describe(error))")
      }
    }

    /// A tensor name as a file name: letters, digits, '.', '_' and '-' kept, the rest '_'.
    static func fileName(for tensorName: String, index: Int) -> String {
      let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")
      let cleaned = String(tensorName.map { allowed.contains($0) ? $0 : "_" })
      return cleaned.isEmpty || cleaned.allSatisfy({ $0 == "." }) ? "output-\(index)" : cleaned
    }
  }
}
