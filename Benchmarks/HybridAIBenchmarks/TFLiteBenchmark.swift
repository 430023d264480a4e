import Foundation
import TFLite

/// Invoke latency of ``TFLite/Interpreter`` vs Python's `ai_edge_litert.interpreter.Interpreter`
/// on the same model, inputs and thread count, measured in the same run (target ≤ 1.05×).
///
/// Both sides allocate once, fill the inputs with the same deterministic values, invoke
/// `warmUpRuns` times untimed (caches, branch predictors and the CPU's clock settle: on a model
/// that runs in microseconds the first hundreds of invokes are slower), then time `runs` invokes
/// and report the median.
public struct TFLiteBenchmark: Sendable {
  public struct Settings: Sendable {
    /// The models to measure.
    public var models: [String]
    /// The reference: a Python with `ai_edge_litert`, and the script that times it.
    public var referencePython: String?
    public var referenceScript: String
    public var threads = 2
    public var runs = 100
    /// Untimed invokes before the timed ones, on both sides.
    public var warmUpRuns = 200
    /// Rounds alternate ours and the reference (the machine drifts); medians of the rounds are compared.
    public var rounds = 5
    /// Rounds for a model whose invoke takes under 100 µs: on a shared virtual machine such a
    /// round's median jumps between levels (3.8 / 6 / 9 µs here, on both sides alike), so more
    /// rounds are needed for a stable median.
    public var roundsForTinyModels = 15
    public var seed: UInt64 = 7

    public init(models: [String], referencePython: String?, referenceScript: String) {
      self.models = models
      self.referencePython = referencePython
      self.referenceScript = referenceScript
    }
  }

  public let settings: Settings
  private let progress: @Sendable (String) -> Void

  public init(settings: Settings, progress: @escaping @Sendable (String) -> Void = { _ in }) {
    self.settings = settings
    self.progress = progress
  }

  public func run() throws -> BenchmarkReport {
    var report = BenchmarkReport(title: "TensorFlow Lite (LiteRT) — invoke latency, median of \(settings.rounds) rounds (\(settings.roundsForTinyModels) for models under 100 µs) × \(settings.runs) invokes (after \(settings.warmUpRuns) untimed), \(settings.threads) threads")
    for model in settings.models {
      let name = URL(fileURLWithPath: model).deletingPathExtension().lastPathComponent
      var ours: [Double] = [], theirs: [Double] = []
      var rounds = max(1, settings.rounds)
      var round = 0
      while round < rounds {
        round += 1
        progress("\(name), round \(round)/\(rounds): HybridAI, then the Python reference")
        ours.append(try measure(model) * 1000)
        if let python = settings.referencePython { theirs.append(try reference(model, python: python) * 1000) }
        if round == 1, ours[0] < 100 { rounds = max(rounds, settings.roundsForTinyModels) }
      }
      report.rows.append(.init(metric: "\(name) invoke (µs)", ours: ours.median,
                               reference: theirs.isEmpty ? nil : theirs.median, target: .atMost(1.05)))
      report.notes.append("\(name) per-round medians (µs): ours " + ours.slashList(decimals: 1) + ", reference " + theirs.slashList(decimals: 1))
    }
    if settings.referencePython == nil {
      report.notes.append("no reference Python given: run `make bench` for the side-by-side comparison")
    }
    report.notes.append("reference: ai_edge_litert.interpreter.Interpreter (Python; the wheel's own copy of the TFLite runtime, same kernels as libLiteRt), same inputs and threads")
    return report
  }

  private func measure(_ model: String) throws -> Double {
    let interpreter = try Interpreter(modelPath: model, options: Interpreter.Options(threadCount: settings.threads))
    try interpreter.allocateTensors()
    for index in 0..<interpreter.inputTensorCount {
      let tensor = try interpreter.input(at: index)
      try interpreter.copy(Self.inputBytes(for: tensor, seed: settings.seed &+ UInt64(index)), toInputAt: index)
    }
    for _ in 0..<max(1, settings.warmUpRuns) { try interpreter.invoke() }
    var times: [Double] = []
    for _ in 0..<settings.runs {
      let started = ContinuousClock.now
      try interpreter.invoke()
      let elapsed = ContinuousClock.now - started
      times.append(Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15)
    }
    return times.median
  }

  private func reference(_ model: String, python: String) throws -> Double {
    let output = try ReferenceProcess.run(python, [settings.referenceScript, model, "\(settings.threads)", "\(settings.runs)", "\(settings.seed)",
                                                     "\(settings.warmUpRuns)"])
    struct Result: Decodable { let median_ms: Double }
    return try JSONDecoder().decode(Result.self, from: output).median_ms
  }

  /// The same values as the reference script: a 64-bit LCG; float inputs are byte / 255.
  static func inputBytes(for tensor: Tensor, seed: UInt64) -> Data {
    var state = seed
    func nextByte() -> UInt8 {
      state = state &* 6364136223846793005 &+ 1442695040888963407
      return UInt8(truncatingIfNeeded: state >> 56)
    }
    let elements = tensor.shape.elementCount ?? 0
    switch tensor.dataType {
    case .float32:
      var values = [Float](repeating: 0, count: elements)
      for index in values.indices { values[index] = Float(Double(nextByte()) / 255) }
      return values.withUnsafeBytes { Data($0) }
    default:
      return Data((0..<tensor.data.count).map { _ in nextByte() })
    }
  }
}
