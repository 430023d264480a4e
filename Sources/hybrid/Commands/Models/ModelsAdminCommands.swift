import ArgumentParser
import Foundation
import HybridCommandLine
import ModelDelivery

/// `hybrid models deploy NAME FILE` — creates the model if needed and uploads FILE as a new version.
struct ModelsDeployCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "deploy", abstract: "Upload a model file as a new version (creating the model if needed).",
    discussion: """
      The file is FILE, or the one --from names: hf:ORG/REPO[:QUANT][@REVISION] is fetched from the Hugging Face \
      Hub into its shared cache first (unless it is there), ollama:NAME[:TAG] is read from Ollama's store.
      Example: hybrid models deploy smollm2 --from hf:ggml-org/SmolLM2-135M-Instruct-GGUF:Q8_0 --publish
      """)

  @Argument(help: "The model's name (letters, digits, '-' and '_').") var name: String
  @Argument(help: "The model file (.tflite, .gguf or any other); or give --from.") var file: String?
  @Option(name: .long, help: "Upload the model this reference names instead of FILE (hf:…, ollama:…).") var from: String?
  @Flag(name: .long, help: "Publish the new version, so clients get it.") var publish = false
  @Option(name: .long, parsing: .singleValue, help: "A tag for a new model. Repeatable.") var tag: [String] = []
  @Option(name: .long, help: "A description for a new model.") var description: String?
  @Flag(name: .long, help: "Print the new version as JSON.") var json = false
  @OptionGroup var admin: AdminConnectionOptions

  func validate() throws {
    // Before anything reaches the server: a model is not created for a file that cannot be uploaded.
    switch (file, from) {
    case (let file?, nil):
      try FileArgument.requireReadableFile(file, label: "the model file")
    case (nil, let from?):
      do {
        if case .registry = try ModelReference(from) { throw ValidationError("--from takes a file, hf: or ollama: model, not a registry's own") }
      } catch let error as ModelReferenceError {
        throw ValidationError("--from: \(error)")
      }
    default:
      throw ValidationError("give the model file or --from REFERENCE, not both")
    }
  }

  func run() async throws {
    let registry = try admin.connect()
    let path = try await modelFile()
    if try await registry.modelIfExists(named: name) == nil {
      _ = try await registry.createModel(name: name, description: description ?? "", tags: tag)
      Terminal.status("created model \(name)")
    }
    var version = try await registry.uploadVersion(name: name, fileAt: URL(fileURLWithPath: path))
    Terminal.status("uploaded \(name) version \(version.version): \(version.sizeBytes) bytes, \(version.format), sha256 \(version.sha256)")
    if publish {
      let model = try await registry.publish(name: name, version: version.version)
      version = model.version(version.version) ?? version
      Terminal.status("published \(name) version \(version.version)")
    }
    if json { try printJSON(version) } else { Terminal.write("\(version.version)\n") }
  }

  /// FILE, or the file of `--from` (fetched from the Hub when the cache lacks it).
  private func modelFile() async throws -> String {
    guard let from else { return file ?? "" }
    do {
      let model = try await ModelReferenceFetcher().model(for: try ModelReference(from), progress: ModelFetchDisplay.bar())
      Terminal.status("deploying \(model.weights.path)")
      return model.weights.resolvingSymlinksInPath().path
    } catch {
      try ModelFetchExitCode.exitIfModelFetchFailure(error)
    }
  }
}

/// `hybrid models publish NAME VERSION`.
struct ModelsPublishCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(commandName: "publish", abstract: "Publish a version, so clients can get it.")
  @Argument(help: "The model's name.") var name: String
  @Argument(help: "The version to publish.") var version: String
  @OptionGroup var admin: AdminConnectionOptions

  func run() async throws {
    let model = try await admin.connect().publish(name: name, version: version)
    Terminal.write(ModelsListCommand.describe(model))
  }
}

/// `hybrid models unpublish NAME VERSION`.
struct ModelsUnpublishCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(commandName: "unpublish", abstract: "Withdraw a published version.")
  @Argument(help: "The model's name.") var name: String
  @Argument(help: "The version to withdraw.") var version: String
  @OptionGroup var admin: AdminConnectionOptions

  func run() async throws {
    let model = try await admin.connect().unpublish(name: name, version: version)
    Terminal.write(ModelsListCommand.describe(model))
  }
}

/// `hybrid models rollout NAME VERSION_A=90 VERSION_B=10` (or `--clear`).
struct ModelsRolloutCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "rollout", abstract: "Split clients between published versions by percentage (A/B).",
    discussion: "Example: hybrid models rollout selfie 1=90 2=10. Each installation keeps its bucket.")
  @Argument(help: "The model's name.") var name: String
  @Argument(help: "VERSION=PERCENT pairs summing to 100.") var splits: [String] = []
  @Flag(name: .long, help: "Remove the roll-out: clients get the newest published version.") var clear = false
  @OptionGroup var admin: AdminConnectionOptions

  func validate() throws {
    guard clear != !splits.isEmpty else { throw ValidationError("give VERSION=PERCENT pairs, or --clear") }
    _ = try parsedSplits()
  }

  func parsedSplits() throws -> [RolloutSplit] {
    try splits.map { pair in
      let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
      guard parts.count == 2, let percent = Double(parts[1]), percent >= 0, percent <= 100 else {
        throw ValidationError("'\(pair)' is not VERSION=PERCENT (e.g. 2=10)")
      }
      return RolloutSplit(version: parts[0], percent: percent)
    }
  }

  func run() async throws {
    let registry = try admin.connect()
    let model = clear ? try await registry.clearRollout(name: name)
                      : try await registry.setRollout(name: name, splits: try parsedSplits())
    Terminal.write(ModelsListCommand.describe(model))
  }
}

/// `hybrid models list`.
struct ModelsListCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "list", abstract: "List the registry's models and versions, or with --local the GGUF models on this machine.")
  @Flag(name: .long, help: "Print JSON.") var json = false
  @Flag(name: .long, help: ArgumentHelp(
    "List the GGUF models on this machine instead: Hugging Face's cache, Ollama's store and the model folders.",
    discussion: "Each with the reference --model takes, its architecture, quantization, size and whether a projector comes with it."))
  var local = false
  @OptionGroup var admin: AdminConnectionOptions

  func run() async throws {
    if local { return try LocalModelsList(json: json).print() }
    let models = try await admin.connect().listModels()
    if json { return try printJSON(models) }
    if models.isEmpty { Terminal.write("no models\n") }
    for model in models { Terminal.write(Self.describe(model)) }
  }

  /// A model and its versions, a few lines for people.
  static func describe(_ model: RegistryModel) -> String {
    var text = "\(model.name)" + (model.tags.isEmpty ? "" : " [\(model.tags.joined(separator: ", "))]")
      + " · serving \(model.servedVersion.map { "version \($0)" } ?? "nothing")"
    if let rollout = model.rollout {
      text += " · roll-out " + rollout.splits.map { "\($0.version)=\(String(format: "%g", $0.percent))%" }.joined(separator: " ")
    }
    text += "\n"
    for version in model.versions {
      text += "  version \(version.version)  \(version.state)  \(version.format)  \(version.sizeBytes) bytes  sha256 \(version.sha256.prefix(16))…\n"
    }
    return text
  }
}

/// `hybrid models show NAME [--version V]`.
struct ModelsShowCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(commandName: "show", abstract: "Show one model, or one of its versions.")
  @Argument(help: "The model's name.") var name: String
  @Option(name: .long, help: "Show only this version.") var version: String?
  @Flag(name: .long, help: "Print JSON.") var json = false
  @OptionGroup var admin: AdminConnectionOptions

  func run() async throws {
    let registry = try admin.connect()
    guard let version else {
      let model = try await registry.model(named: name)
      return json ? try printJSON(model) : Terminal.write(ModelsListCommand.describe(model))
    }
    let found = try await registry.version(version, ofModel: name)
    if json { return try printJSON(found) }
    Terminal.write("""
      \(name) version \(found.version)
        state    \(found.state)
        format   \(found.format)
        size     \(found.sizeBytes) bytes
        sha256   \(found.sha256)
        created  \(found.createTime ?? "unknown")

      """)
  }
}

/// `hybrid models rm NAME [--version V]`.
struct ModelsRemoveCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(commandName: "rm", abstract: "Remove a model (all versions) or one version.")
  @Argument(help: "The model's name.") var name: String
  @Option(name: .long, help: "Remove only this version.") var version: String?
  @OptionGroup var admin: AdminConnectionOptions

  func run() async throws {
    let registry = try admin.connect()
    if let version {
      try await registry.deleteVersion(name: name, version: version)
      Terminal.status("removed \(name) version \(version)")
    } else {
      try await registry.deleteModel(name: name)
      Terminal.status("removed \(name)")
    }
  }
}

/// What every admin command takes: `--server`, `--token` and `--log-level`.
struct AdminConnectionOptions: ParsableArguments {
  @OptionGroup var server: RegistryServerOptions
  @OptionGroup var token: AdminTokenOptions
  @OptionGroup var logging: LoggingOptions

  /// Sets up logging and returns the admin client for the chosen server and token.
  func connect() throws -> ModelRegistryAdmin {
    logging.bootstrap()
    return try ModelRegistryAdmin(server: server.url(), token: token.value())
  }
}

/// Prints a value as pretty, sorted JSON on standard output; dates as ISO 8601 text (`2026-11-28T00:22:07Z`).
func printJSON(_ value: some Encodable) throws {
  let encoder = JSONEncoder()
  encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
  encoder.dateEncodingStrategy = .iso8601
  Terminal.write(String(decoding: try encoder.encode(value), as: UTF8.self) + "\n")
}
