import Foundation
import HybridAI
import HybridAIOnDevice

/// Measures the on-device model through the public session API and, in the same run, llama.cpp's
/// own `llama-bench` on the same model file, and reports the ratios.
///
/// - Prompt processing: a fresh session answers a prompt of about `promptTokens` tokens with one
///   token; rate = evaluated prompt tokens / prompt-evaluation time (llama-bench: `pp<N>`).
/// - Decode: a fresh session generates up to `generatedTokens` tokens greedily; rate = tokens after
///   the first / time after the first (llama-bench: `tg<N>`).
/// - Time to first token at turn 1 and turn `turns` of one conversation: with prefix reuse, a
///   later turn evaluates only its new tokens, so the ratio should stay near 1.
public struct OnDeviceBenchmark: Sendable {
  public struct Settings: Sendable {
    public var model: SystemLanguageModel
    public var llamaBenchPath: String?
    public var promptTokens = 512
    public var generatedTokens = 128
    public var repetitions = 5
    public var turns = 10

    public init(model: SystemLanguageModel, llamaBenchPath: String?) {
      self.model = model
      self.llamaBenchPath = llamaBenchPath
    }
  }

  public let settings: Settings
  private let progress: @Sendable (String) -> Void

  public init(settings: Settings, progress: @escaping @Sendable (String) -> Void = { _ in }) {
    self.settings = settings
    self.progress = progress
  }

  public func run() async throws -> BenchmarkReport {
    var report = BenchmarkReport(title: "On-device (llama.cpp) — \(settings.model.modelIdentifier), \(settings.model.configuration.threads) threads")
    report.notes.append("model on \(settings.model.placementText)")

    // Rounds interleave our measurements with the reference's, so both see the same machine
    // (shared CPUs drift by ±30% over minutes); medians are reported.
    let reference = settings.llamaBenchPath.map(LlamaBenchReference.init(executable:))
    var ours = (prompt: [Double](), decode: [Double]())
    var theirs = (prompt: [Double](), decode: [Double]())
    for round in 1...max(1, settings.repetitions) {
      progress("round \(round)/\(settings.repetitions): prompt processing (~\(settings.promptTokens) tokens), decode (\(settings.generatedTokens) tokens)")
      ours.prompt.append(try await measurePromptProcessing())
      ours.decode.append(try await measureDecode())
      if let reference {
        let result = try await reference.run(
          model: settings.model.modelPath, promptTokens: settings.promptTokens,
          generatedTokens: settings.generatedTokens, threads: settings.model.configuration.threads, repetitions: 1)
        theirs.prompt.append(result.promptTokensPerSecond)
        theirs.decode.append(result.generationTokensPerSecond)
      }
    }
    progress("time to first token over a \(settings.turns)-turn conversation")
    let firstTokenTimes = try await measureTimeToFirstToken()

    let promptRate = ours.prompt.median, decodeRate = ours.decode.median
    let referencePrompt = theirs.prompt.isEmpty ? nil : theirs.prompt.median
    let referenceDecode = theirs.decode.isEmpty ? nil : theirs.decode.median
    report.rows.append(.init(metric: "prompt processing (tokens/s)", ours: promptRate,
                             reference: referencePrompt, target: .atLeast(0.95)))
    report.rows.append(.init(metric: "decode (tokens/s)", ours: decodeRate,
                             reference: referenceDecode, target: .atLeast(0.95)))
    report.rows.append(.init(metric: "time to first token, turn \(settings.turns) vs turn 1 (ms)",
                             ours: firstTokenTimes.last! * 1000, reference: firstTokenTimes.first! * 1000,
                             target: .atMost(1.3)))
    report.notes.append("turn 1 includes creating the session's llama.cpp context (KV cache allocation); turn \(settings.turns) vs turn 2: "
      + String(format: "%.2f×", firstTokenTimes.last! / firstTokenTimes[1]))
    report.notes.append("TTFT per turn (ms): " + firstTokenTimes.map { String(format: "%.1f", $0 * 1000) }.joined(separator: ", "))
    report.notes.append("rounds: \(ours.prompt.count); per-round prompt t/s ours " + ours.prompt.slashList() + " reference " + theirs.prompt.slashList())
    report.notes.append("per-round decode t/s ours " + ours.decode.slashList() + " reference " + theirs.decode.slashList())
    if reference == nil { report.notes.append("no llama-bench given: run `make bench` for the side-by-side comparison") }
    return report
  }

  // MARK: - Measurements

  private func measurePromptProcessing() async throws -> Double {
    let session = GenerativeModelSession(model: settings.model)
    let sentence = "The quick brown fox jumps over the lazy dog while the cat watches from the warm windowsill. "
    let prompt = String(repeating: sentence, count: max(1, settings.promptTokens / 20))
    let response = try await session.respond(to: prompt, options: GenerationOptions(sampling: .greedy, maximumResponseTokens: 1))
    guard let rate = response.rawResponse.timings?.promptTokensPerSecond else { throw BenchmarkError.noTimings }
    return rate
  }

  private func measureDecode() async throws -> Double {
    let session = GenerativeModelSession(model: settings.model)
    let response = try await session.respond(
      to: "Write a long, detailed story about a lighthouse keeper and a storm. Use many paragraphs.",
      options: GenerationOptions(sampling: .greedy, maximumResponseTokens: settings.generatedTokens))
    guard let rate = response.rawResponse.timings?.generationTokensPerSecond, response.usage.outputTokens >= 16 else {
      throw BenchmarkError.tooFewTokens(response.usage.outputTokens)
    }
    return rate
  }

  private func measureTimeToFirstToken() async throws -> [Double] {
    let session = GenerativeModelSession(model: settings.model, instructions: "You are a helpful assistant. Answer briefly.")
    var times: [Double] = []
    for turn in 1...settings.turns {
      let response = try await session.respond(
        to: "Question \(turn): name one interesting fact about the number \(turn * 7).",
        options: GenerationOptions(sampling: .greedy, maximumResponseTokens: 32))
      guard let ttft = response.rawResponse.timings?.timeToFirstToken else { throw BenchmarkError.noTimings }
      times.append(ttft.seconds)
    }
    return times
  }


}

public enum BenchmarkError: Error, CustomStringConvertible {
  case noTimings
  case tooFewTokens(Int)
  case referenceFailed(String)
  /// A request of a load run failed (which server, and why).
  case measurementFailed(String)

  public var description: String {
    switch self {
    case .noTimings: "the model reported no timings"
    case .tooFewTokens(let count): "the model generated only \(count) tokens; decode speed needs more"
    case .referenceFailed(let why): "a reference tool or the benchmark's setup failed: \(why)"
    case .measurementFailed(let why): "a measured request failed: \(why)"
    }
  }
}
