import Foundation
import TFLite

/// Invoke latency of ``TFLite/Interpreter`` vs Python's `ai_edge_litert.interpreter.Interpreter`
/// on the same model, inputs and thread count, measured in the same run (target ≤ 1.05×).
///
/// Both sides load the model once, fill the inputs with the same deterministic values and invoke
/// `warmUpRuns` times untimed (caches, branch predictors and the CPU's clock settle: on a model
/// that runs in microseconds the first hundreds of invokes are slower). Then rounds alternate:
/// ours, the reference's, ours… (the order flips every round), each `roundWarmUpRuns` untimed
/// invokes and the median of `runs` timed ones. The reference stays up between its rounds
/// (``RoundServingReference``), so consecutive rounds are milliseconds apart and both sides see
/// the same state of a shared machine. Reported: the median of each side's round medians, and
/// the median of the per-round ratios (each round of ours against the reference's next to it),
/// which is the ratio judged: when the machine shifts between speeds during the run, the two
/// medians can fall on different levels, while each pair shares one.
public struct TFLiteBenchmark: Sendable {
  public struct Settings: Sendable {
    /// The models to measure.
    public var models: [String]
    /// The reference: a Python with `ai_edge_litert`, and the script that times it.
    public var referencePython: String?
    public var referenceScript: String
    public var threads = 2
    /// Timed invokes per round (the round's median is kept).
    public var runs = 100
    /// Untimed invokes after loading, on both sides.
    public var warmUpRuns = 200
    /// Untimed invokes at the start of every round (the thread pool wakes up after the other
    /// side's round).
    public var roundWarmUpRuns = 20
    /// Rounds per side.
    public var rounds = 21
    /// Rounds per side for a model whose invoke takes under 100 µs: such a round lasts about a
    /// millisecond, and on a shared virtual machine its median jumps between levels (4 / 6 / 9 µs
    /// here, on both sides alike), so many more rounds are needed for a stable median.
    public var roundsForTinyModels = 201
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

  public func run() async throws -> BenchmarkReport {
    var report = BenchmarkReport(title: "TensorFlow Lite (LiteRT) — invoke latency, \(settings.threads) threads: \(settings.rounds) rounds (\(settings.roundsForTinyModels) for models under 100 µs) × \(settings.runs) invokes per side, alternating with the reference's; columns: medians of the round medians; ratio: median of the per-round ratios")
    for model in settings.models {
      let name = URL(fileURLWithPath: model).deletingPathExtension().lastPathComponent
      progress("\(name): loading and warming up both sides")
      let interpreter = try preparedInterpreter(model)
      var reference: RoundServingReference?
      if let python = settings.referencePython {
        reference = try await RoundServingReference(python, [settings.referenceScript, model, "\(settings.threads)",
                                                             "\(settings.runs)", "\(settings.seed)",
                                                             "\(settings.warmUpRuns)", "--rounds-from-stdin"])
      }
      var ours: [Double] = [], theirs: [Double] = []
      do {
        (ours, theirs) = try await alternatingRounds(name: name, interpreter: interpreter, reference: reference)
        await reference?.finish()
      } catch {
        await reference?.finish()
        throw error
      }
      let ratios = zip(ours, theirs).map { $0 / $1 }
      report.rows.append(.init(metric: "\(name) invoke (µs)", ours: ours.median,
                               reference: theirs.isEmpty ? nil : theirs.median, target: .atMost(1.05),
                               pairedRatio: ratios.isEmpty ? nil : ratios.median))
      if !theirs.isEmpty {
        let medianRatio = ours.median / theirs.median
        report.notes.append("\(name): ratio of the two medians \(String(format: "%.2f", medianRatio))×; "
                            + "round medians (µs) ours \(Self.spread(ours)), reference \(Self.spread(theirs))")
      }
    }
    if settings.referencePython == nil {
      report.notes.append("no reference Python given: run `make bench` for the side-by-side comparison")
    }
    report.notes.append("reference: ai_edge_litert.interpreter.Interpreter (Python; the wheel's own copy of the TFLite runtime, same kernels as libLiteRt), same inputs and threads")
    return report
  }

  /// Loaded, allocated, inputs filled, warmed up.
  /// Our rounds and the reference's, alternating which goes first; more rounds for tiny models.
  private func alternatingRounds(name: String, interpreter: Interpreter,
                                 reference: RoundServingReference?) async throws -> (ours: [Double], theirs: [Double]) {
    var ours: [Double] = [], theirs: [Double] = []
    func oursRound() throws { ours.append(try timedRound(interpreter) * 1000) }
    func theirRound() async throws {
      if let reference {
        theirs.append(try await reference.round(runs: settings.runs, warmUpRuns: settings.roundWarmUpRuns) * 1000)
      }
    }
    var rounds = max(1, settings.rounds)
    var round = 0
    while round < rounds {
      if round.isMultiple(of: 2) {
        try oursRound(); try await theirRound()
      } else {
        try await theirRound(); try oursRound()
      }
      if round == 0, ours[0] < 100 {
        rounds = max(rounds, settings.roundsForTinyModels)
        progress("\(name): \(rounds) alternating rounds (under 100 µs an invoke)")
      }
      round += 1
    }
    return (ours, theirs)
  }

  private func preparedInterpreter(_ model: String) throws -> Interpreter {
    let interpreter = try Interpreter(modelPath: model, options: Interpreter.Options(threadCount: settings.threads))
    try interpreter.allocateTensors()
    for index in 0..<interpreter.inputTensorCount {
      let tensor = try interpreter.input(at: index)
      try interpreter.copy(Self.inputBytes(for: tensor, seed: settings.seed &+ UInt64(index)), toInputAt: index)
    }
    for _ in 0..<max(1, settings.warmUpRuns) { try interpreter.invoke() }
    return interpreter
  }

  /// One round: untimed invokes, then the median of `runs` timed ones, in milliseconds.
  private func timedRound(_ interpreter: Interpreter) throws -> Double {
    for _ in 0..<settings.roundWarmUpRuns { try interpreter.invoke() }
    var times: [Double] = []
    times.reserveCapacity(settings.runs)
    for _ in 0..<max(1, settings.runs) {
      let started = ContinuousClock.now
      try interpreter.invoke()
      let elapsed = ContinuousClock.now - started
      times.append(Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15)
    }
    return times.median
  }

  /// Minimum, quartiles and maximum: `min / q1 / median / q3 / max`.
  static func spread(_ values: [Double]) -> String {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return "—" }
    let at = { (fraction: Double) in sorted[min(sorted.count - 1, Int(Double(sorted.count - 1) * fraction + 0.5))] }
    return [at(0), at(0.25), at(0.5), at(0.75), at(1)].slashList(decimals: 1) + " (min/q1/median/q3/max)"
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
