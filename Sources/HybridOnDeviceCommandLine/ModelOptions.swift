import ArgumentParser
import Foundation
import HybridAI
import HybridAIOnDevice
import HybridCommandLine
import Logging
import ModelDelivery

/// Options that choose and configure the on-device model.
public struct ModelOptions: ParsableArguments, Sendable {
  @Option(name: .long, help: ArgumentHelp(
    "The model: a GGUF file, hf:ORG/REPO[:QUANT][@REVISION] (Hugging Face), ollama:NAME[:TAG] (Ollama's store) or registry:NAME.",
    discussion: "Default: $HYBRIDAI_MODEL, else the bootstrap's SmolLM2. Models are used where they lie; an hf: model not in the cache is fetched from the Hub ($HF_ENDPOINT), a registry: model not installed from $HYBRIDAI_SERVER.",
    valueName: "file|reference"))
  public var model: String?

  @Option(name: .long, parsing: .unconditional, help: "Context window in tokens.")
  public var contextSize = 4096

  @Option(name: .long, parsing: .unconditional, help: "CPU threads (default: all cores).")
  public var threads: Int?

  @Option(name: .long, help: ArgumentHelp(
    "Chat template: a .jinja file, chatml, or a llama.cpp built-in name (default: the model's own).",
    valueName: "file|name"))
  public var chatTemplate: String?

  @Option(name: .long, parsing: .unconditional, help: ArgumentHelp(
    "Most tokens drafted per pass by speculative decoding from the conversation's own n-grams; 0 turns it off.",
    discussion: "Default: \(SpeculativeDecoding.ngram.maximumDraftTokens). Drafted tokens are kept only where the model chooses them too: answers do not change, answers that repeat the prompt come faster.",
    valueName: "tokens"))
  public var draftMax = SpeculativeDecoding.ngram.maximumDraftTokens

  @Option(name: .long, help: ArgumentHelp(
    "A draft model for speculative decoding: a smaller GGUF with the model's vocabulary, drafting instead of the n-grams.",
    discussion: "Checked against the model's vocabulary when it loads. Pays where a pass of the draft model costs much less than one of the model (a GPU, a draft a tenth of the size).",
    valueName: "file"))
  public var draftModel: String?

  @Option(name: .long, help: ArgumentHelp(
    "The model's multimodal projector (an mmproj GGUF): the model then reads images and audio itself.",
    discussion: "Default: the one mmproj*.gguf beside the model that matches it (said in the log), or the projector an hf: or ollama: model comes with.",
    valueName: "file"))
  public var mmproj: String?

  @Flag(name: .long, help: "Text only: no projector, not even the one beside the model.")
  public var noMmproj = false

  @Option(name: .long, help: ArgumentHelp(
    "Model layers on the GPU: auto (all that fit on the first GPU, else the CPU), 0 (CPU only) or a count.",
    valueName: "auto|N|0"))
  public var gpuLayers: GPULayers = .automatic

  @Option(name: .long, help: "Compute device for offloaded layers, by llama.cpp's name (CUDA0, Vulkan0, CPU); default: the first GPU.")
  public var device: String?

  public init() {}

  public func validate() throws {
    guard (1...Int(Int32.max)).contains(contextSize) else {
      throw ValidationError("--context-size must be between 1 and \(Int32.max) tokens, got \(contextSize)")
    }
    if let threads, !(1...1024).contains(threads) { throw ValidationError("--threads must be between 1 and 1024, got \(threads)") }
    if let device, device.trimmingCharacters(in: .whitespaces).isEmpty {
      throw ValidationError("--device needs a device name such as CUDA0")
    }
    guard (0...1024).contains(draftMax) else { throw ValidationError("--draft-max must be between 0 and 1024 tokens, got \(draftMax)") }
    if let draftModel {
      guard draftMax > 0 else { throw ValidationError("--draft-model drafts for speculative decoding, which --draft-max 0 turns off") }
      try FileArgument.requireReadableFile(draftModel, label: "--draft-model")
    }
    // A path given by hand that is not there is a typo, not a model "not downloaded yet".
    if let model {
      switch try reference(model) {
      case .file: try FileArgument.requireReadableFile(model, label: "--model")
      case .huggingFace, .registry: break   // fetched when the command runs, unless this machine holds it
      case .ollama: _ = try modelPath()
      }
    }
    if let mmproj {
      guard !noMmproj else { throw ValidationError("--mmproj and --no-mmproj exclude each other") }
      try FileArgument.requireReadableFile(mmproj, label: "--mmproj")
    }
    _ = try template()
  }

  /// The template `--chat-template` names, read now (`nil`: the model's own).
  private func template() throws(ValidationError) -> ChatTemplate? {
    guard let chatTemplate else { return nil }
    do {
      return try ChatTemplateArgument.template(chatTemplate)
    } catch {
      throw ValidationError("--chat-template: \(error)")
    }
  }

  /// The on-device model these options describe. Throws when the `--chat-template` file that
  /// `validate()` read can no longer be read (rather than quietly using the model's own).
  public func makeModel() throws -> SystemLanguageModel {
    var configuration = SystemLanguageModel.Configuration(contextSize: contextSize)
    if let threads { configuration.threads = threads }
    configuration.chatTemplate = try template()
    configuration.gpuLayers = gpuLayers
    configuration.device = device
    configuration.speculation = SpeculativeDecoding(maximumDraftTokens: draftMax, draftModelPath: draftModel)
    // A blob of Ollama's store is named by its digest: report the model as Ollama names it.
    if let model, case .ollama(let name, let tag) = try reference(model) { configuration.modelName = "\(name):\(tag)" }
    let local = try localModel()
    configuration.projectorPath = try projectorPath(pairedWith: local)
    return SystemLanguageModel(modelPath: local?.weights.path ?? ModelLocator.defaultModelPath(), configuration: configuration)
  }

  /// The projector: `--mmproj`, else (unless `--no-mmproj`) the one that comes with the model.
  public func projectorPath(pairedWith local: LocalModel?) throws(ValidationError) -> String? {
    if noMmproj { return nil }
    if let mmproj { return mmproj }
    guard let projector = local?.projector else { return nil }
    Self.logger.info("paired the model with the projector beside it (--no-mmproj: text only)", metadata: [
      "model": "\(local?.weights.lastPathComponent ?? "")", "projector": "\(projector.path)",
    ])
    return projector.path
  }

  /// The on-device model these options describe, with an `hf:` or `registry:` model fetched first
  /// when this machine lacks it (`progress` sees the transfer).
  public func makeModel(environment: [String: String] = ProcessInfo.processInfo.environment,
                        progress: @escaping @Sendable (ModelFetchProgress) -> Void) async throws -> SystemLanguageModel {
    if let model, case let reference = try reference(model), reference.isFetchedWhenMissing {
      _ = try await ModelReferenceFetcher(environment: environment).model(for: reference, progress: progress)
    }
    return try makeModel()
  }

  /// The GGUF file `--model` names: the path as given, or the file of an `hf:` or `ollama:` reference
  /// found in its store (`nil` without `--model`).
  public func modelPath(environment: [String: String] = ProcessInfo.processInfo.environment) throws(ValidationError) -> String? {
    try localModel(environment: environment)?.weights.path
  }

  /// The model `--model` names as found on this machine, with its projector (`nil` without `--model`).
  public func localModel(environment: [String: String] = ProcessInfo.processInfo.environment) throws(ValidationError) -> LocalModel? {
    guard let model else { return nil }
    let reference = try reference(model)
    do {
      return try LocalModelResolver(environment: environment).resolve(reference)
    } catch {
      throw ValidationError("--model: \(error)")
    }
  }

  private static let logger = Logger(label: "HybridAI.cli")

  private func reference(_ text: String) throws(ValidationError) -> ModelReference {
    do { return try ModelReference(text) } catch { throw ValidationError("--model: \(error)") }
  }
}
