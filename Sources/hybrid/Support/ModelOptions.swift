import ArgumentParser
import HybridAI
import HybridAIOnDevice
import HybridCommandLine
import HybridOnDeviceCommandLine

/// Options that shape one answer.
struct SamplingOptions: ParsableArguments, Sendable {
  @Option(name: .long, parsing: .unconditional, help: "Maximum tokens in the answer.")
  var maxTokens: Int?

  @Option(name: .long, parsing: .unconditional, help: "Sampling temperature (0 = greedy).")
  var temperature: Double?

  @Option(name: .long, parsing: .unconditional, help: "Random seed, for repeatable sampling.")
  var seed: UInt64?

  @Flag(name: .long, help: "Greedy sampling: always the most likely token (deterministic).")
  var greedy = false

  @Option(name: .long, parsing: .unconditional, help: "Sample among the K most likely tokens.")
  var topK: Int?

  @Option(name: .long, parsing: .unconditional, help: "Nucleus sampling threshold (0...1).")
  var topP: Double?

  @Option(name: .long, parsing: .unconditional, help: ArgumentHelp(
    "Divide the score of tokens already in the answer by this (on-device; 1 = off, 1.1–1.3 usual).",
    discussion: "Keeps a small model out of repetition loops; works with --greedy. Cloud models ignore it."))
  var repetitionPenalty: Double?

  @Option(name: .long, parsing: .unconditional, help: ArgumentHelp(
    "Make continuing a run of tokens already in the answer less likely (on-device; 0 = off, 0.8 usual).",
    discussion: "The multiplier of llama.cpp's DRY sampler (base 1.75, runs of 2 tokens allowed, broken at new lines, colons, quotes, asterisks): breaks loops without harming lists. Cloud models ignore it."))
  var loopPenalty: Double?

  @Option(name: .long, parsing: .unconditional, help: "Lower a token's score by this times its count in the answer (-2…2).")
  var frequencyPenalty: Double?

  @Option(name: .long, parsing: .unconditional, help: "Lower the score of every token already in the answer by this (-2…2).")
  var presencePenalty: Double?

  @Option(name: .long, help: "Stop when this text is generated (repeatable).")
  var stop: [String] = []

  func validate() throws {
    if greedy && (topK != nil || topP != nil) { throw ValidationError("--greedy cannot be combined with --top-k or --top-p") }
    if topK != nil && topP != nil { throw ValidationError("choose one of --top-k and --top-p") }
    if let topP, !(0...1).contains(topP) { throw ValidationError("--top-p must be between 0 and 1") }
    if let topK, topK <= 0 { throw ValidationError("--top-k must be positive") }
    if let maxTokens, maxTokens <= 0 { throw ValidationError("--max-tokens must be positive") }
    if let temperature, !(0...2).contains(temperature) {
      throw ValidationError("--temperature must be between 0 and 2 (0 is greedy), got \(temperature)")
    }
    if let invalid = generationOptions.invalidOption {
      throw ValidationError("--" + invalid.replacing(".multiplier", with: "").replacing(/[A-Z]/) { "-" + $0.output.lowercased() })
    }
  }

  /// The options of `hybrid chat`: ``generationOptions`` with the standard loop penalty unless
  /// `--loop-penalty` says otherwise (`--loop-penalty 0` is off). Sampled answers of a small
  /// on-device model otherwise fall into loops; a cloud model ignores it.
  var chatOptions: GenerationOptions {
    var options = generationOptions
    if options.loopPenalty == nil { options.loopPenalty = .standard }
    return options
  }

  var generationOptions: GenerationOptions {
    let sampling: GenerationOptions.SamplingMode? =
      if greedy { .greedy }
      else if let topK { .random(top: topK, seed: seed) }
      else if let topP { .random(probabilityThreshold: topP, seed: seed) }
      else if let seed { .random(probabilityThreshold: 0.9, seed: seed) }
      else { nil }
    return GenerationOptions(sampling: sampling, temperature: temperature, maximumResponseTokens: maxTokens,
                             repetitionPenalty: repetitionPenalty, loopPenalty: loopPenalty.map { LoopPenalty(multiplier: $0) },
                             frequencyPenalty: frequencyPenalty,
                             presencePenalty: presencePenalty, stopSequences: stop)
  }
}

/// `--context-policy`: what a conversation does when it outgrows the model's context window.
enum ContextPolicyOption: String, ExpressibleByArgument, CaseIterable, Sendable {
  case fail
  case rolling
  case summarize

  var policy: ContextPolicy {
    switch self {
    case .fail: .fail
    case .rolling: .rollingWindow
    case .summarize: .summarizing()
    }
  }
}

/// How a conversation starts and what happens when it outgrows the context window. The commands
/// that hold a conversation declare the model, routing, sampling and logging options beside it, not
/// inside: in a debug build, argument parsing validates every level of nested option groups again
/// for each level above it, so each level of nesting multiplies its cost.
struct ConversationOptions: ParsableArguments, Sendable {
  @Option(name: .long, help: "Instructions (system prompt) for the model.")
  var instructions: String?

  @Option(name: .long, help: ArgumentHelp(
    "When the conversation outgrows the context window: fail, rolling (drop the oldest turns) or summarize.",
    discussion: "summarize has the model fold the oldest turns into a summary kept in the instructions."))
  var contextPolicy: ContextPolicyOption = .fail
}

extension RoutingOptions {
  /// The session's model: the on-device model, the cloud model, or a hybrid of both, per `--mode`.
  func makeSessionModel(onDevice options: ModelOptions) async throws -> any LanguageModel {
    await makeModel(onDevice: try await options.makeModel(progress: ModelFetchDisplay.bar()))
  }
}
