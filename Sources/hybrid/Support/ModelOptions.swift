import ArgumentParser
import HybridAI
import HybridAIOnDevice

/// Options that choose and configure the on-device model.
struct ModelOptions: ParsableArguments {
  @Option(name: .long, help: "GGUF model file (default: $HYBRIDAI_MODEL, else the bootstrap's SmolLM2).")
  var model: String?

  @Option(name: .long, help: "Context window in tokens.")
  var contextSize = 4096

  @Option(name: .long, help: "CPU threads (default: all cores).")
  var threads: Int?

  @Option(name: .long, help: "Chat template name for models without one (e.g. chatml).")
  var chatTemplate: String?

  func makeModel() -> SystemLanguageModel {
    var configuration = SystemLanguageModel.Configuration(contextSize: contextSize)
    if let threads { configuration.threads = threads }
    configuration.chatTemplate = chatTemplate.map(ChatTemplate.named)
    return SystemLanguageModel(modelPath: model ?? ModelLocator.defaultModelPath(), configuration: configuration)
  }
}

/// Options that shape one answer.
struct SamplingOptions: ParsableArguments {
  @Option(name: .long, help: "Maximum tokens in the answer.")
  var maxTokens: Int?

  @Option(name: .long, help: "Sampling temperature (0 = greedy).")
  var temperature: Double?

  @Option(name: .long, help: "Random seed, for repeatable sampling.")
  var seed: UInt64?

  @Flag(name: .long, help: "Greedy sampling: always the most likely token (deterministic).")
  var greedy = false

  @Option(name: .long, help: "Sample among the K most likely tokens.")
  var topK: Int?

  @Option(name: .long, help: "Nucleus sampling threshold (0...1).")
  var topP: Double?

  @Option(name: .long, help: "Stop when this text is generated (repeatable).")
  var stop: [String] = []

  func validate() throws {
    if greedy && (topK != nil || topP != nil) { throw ValidationError("--greedy cannot be combined with --top-k or --top-p") }
    if topK != nil && topP != nil { throw ValidationError("choose one of --top-k and --top-p") }
    if let topP, !(0...1).contains(topP) { throw ValidationError("--top-p must be between 0 and 1") }
    if let topK, topK <= 0 { throw ValidationError("--top-k must be positive") }
    if let maxTokens, maxTokens <= 0 { throw ValidationError("--max-tokens must be positive") }
  }

  var generationOptions: GenerationOptions {
    let sampling: GenerationOptions.SamplingMode? =
      if greedy { .greedy }
      else if let topK { .random(top: topK, seed: seed) }
      else if let topP { .random(probabilityThreshold: topP, seed: seed) }
      else if let seed { .random(probabilityThreshold: 0.9, seed: seed) }
      else { nil }
    return GenerationOptions(sampling: sampling, temperature: temperature, maximumResponseTokens: maxTokens,
                             stopSequences: stop)
  }
}

/// Logging verbosity for every command.
struct LoggingOptions: ParsableArguments {
  @Option(name: .long, help: "Log level: trace, debug, info, notice, warning, error, critical (default: $HYBRIDAI_LOG_LEVEL or warning).")
  var logLevel: String?

  func bootstrap() { LogSetup.bootstrap(level: logLevel) }
}

/// Everything that sets up a conversation: instructions, models and mode, sampling, logging.
struct ConversationOptions: ParsableArguments {
  @Option(name: .long, help: "Instructions (system prompt) for the model.")
  var instructions: String?

  @OptionGroup var model: ModelOptions
  @OptionGroup var routing: RoutingOptions
  @OptionGroup var sampling: SamplingOptions
  @OptionGroup var logging: LoggingOptions

  /// The session's model: the on-device model, the cloud model, or a hybrid of both, per `--mode`.
  func makeSessionModel() -> any LanguageModel {
    routing.makeModel(onDevice: model.makeModel())
  }
}
