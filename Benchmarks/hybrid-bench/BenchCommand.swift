import ArgumentParser
import Foundation
import HybridAIBenchmarks
import HybridAIOnDevice
import HybridCommandLine
import HybridOnDeviceCommandLine

/// `hybrid-bench` (also run as `hybrid bench`) — the benchmarks, side by side with the reference tools.
///
/// An executable of its own, so the `hybrid` CLI carries no benchmark code; `hybrid bench ARGS`
/// runs the `hybrid-bench` beside it with the same arguments.
@main
struct BenchCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "hybrid bench",
    abstract: "Run benchmarks and compare with the reference implementations.",
    subcommands: [OnDevice.self, Hybrid.self, Serving.self, Speculation.self, Vision.self, Embeddings.self, Guided.self,
                  TensorFlowLite.self, Delivery.self, Hub.self],
    defaultSubcommand: OnDevice.self)

  struct OnDevice: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "on-device",
      abstract: "Prompt and decode speed vs llama-bench; time to first token at turn N vs turn 1.")

    @Option(name: .long, help: "llama.cpp's llama-bench for the side-by-side reference.")
    var reference: String?

    @Option(name: .long, help: "Prompt tokens for the prompt-processing test.")
    var promptTokens = 512

    @Option(name: .long, help: "Tokens for the decode test.")
    var generateTokens = 128

    @Option(name: .long, help: "Repetitions (the median is reported).")
    var repetitions = 5

    @Option(name: .long, help: "Turns in the time-to-first-token conversation.")
    var turns = 10

    @OptionGroup var report: ReportOptions

    @OptionGroup var modelOptions: ModelOptions

    func run() async throws {
      report.logging.bootstrap()
      var settings = OnDeviceBenchmark.Settings(model: try modelOptions.makeModel(), llamaBenchPath: reference)
      settings.promptTokens = promptTokens
      settings.generatedTokens = generateTokens
      settings.repetitions = repetitions
      settings.turns = max(2, turns)
      try BenchCommand.publish(try await OnDeviceBenchmark(settings: settings, progress: BenchCommand.progress).run(), to: report.output)
    }
  }

  struct Hybrid: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "hybrid",
      abstract: "Fallback latency (prefer-cloud with the cloud refusing) and `hybrid serve` aggregate tokens/s at 1/2/4/8 streams vs llama-batched-bench.")

    @Option(name: .long, help: "llama.cpp's llama-batched-bench for the side-by-side reference.")
    var reference: String?

    @Option(name: .long, help: "Repetitions (the median is reported).")
    var repetitions = 5

    @Option(name: .long, help: "Output tokens per server stream.")
    var streamTokens = 128

    @OptionGroup var report: ReportOptions

    @OptionGroup var modelOptions: ModelOptions

    func run() async throws {
      report.logging.bootstrap()
      var settings = HybridInferenceBenchmark.Settings(model: try modelOptions.makeModel(), batchedBenchPath: reference)
      settings.repetitions = repetitions
      settings.streamTokens = streamTokens
      try BenchCommand.publish(try await HybridInferenceBenchmark(settings: settings, progress: BenchCommand.progress).run(), to: report.output)
    }
  }

  struct Serving: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "serving",
      abstract: "`hybrid serve` vs llama-server over HTTP at 1/2/4/8 streams: aggregate tokens/s, TTFT p50/p99, inter-token latency p99.")

    @Option(name: .long, help: "llama.cpp's llama-server, the reference (scripts/bootstrap builds it).")
    var reference = ".deps/llama-server/llama-server"

    @Option(name: .long, help: "llama.cpp's llama-batched-bench, the engine's in-process limit (optional).")
    var batchedReference: String?

    @Option(name: .long, help: "Concurrent streams, comma-separated.")
    var widths = "1,2,4,8"

    @Option(name: .long, help: "Output tokens per request.")
    var streamTokens = 128

    @Option(name: .long, help: "Requests per stream, back to back.")
    var requestsPerStream = 2

    @Option(name: .long, help: "Rounds; who goes first alternates by round (ratios are medians of the per-round ratios).")
    var rounds = 4

    @Option(name: .long, help: "0 (the default): greedy. Above it, sampled by each server's own default chain.")
    var temperature = 0.0

    @OptionGroup var report: ReportOptions

    @OptionGroup var modelOptions: ModelOptions

    func validate() throws {
      guard widths.split(separator: ",").allSatisfy({ Int($0).map { $0 > 0 } == true }) else {
        throw ValidationError("--widths takes positive integers separated by commas, e.g. 1,2,4,8")
      }
      guard (0...2).contains(temperature) else { throw ValidationError("--temperature must be between 0 and 2") }
    }

    func run() async throws {
      report.logging.bootstrap()
      let model = try modelOptions.makeModel()
      var settings = ServingBenchmark.Settings(
        modelPath: model.modelPath, threads: model.configuration.threads, hybridExecutable: Executables.sibling(named: "hybrid"),
        llamaServerPath: reference, batchedBenchPath: batchedReference)
      settings.widths = widths.split(separator: ",").compactMap { Int($0) }
      settings.outputTokens = streamTokens
      settings.requestsPerStream = requestsPerStream
      settings.rounds = rounds
      settings.temperature = temperature
      settings.gpuLayers = model.configuration.gpuLayers
      settings.device = model.configuration.device
      try BenchCommand.publish(try await ServingBenchmark(settings: settings, progress: BenchCommand.progress).run(), to: report.output)
    }
  }

  struct Speculation: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "speculation",
      abstract: "Speculative decoding: hybrid serve with and without its n-gram drafts vs llama-server plain and with each n-gram --spec-type, on repeating a text, editing code and a story, at 1 and 8 streams.")

    @Option(name: .long, help: "llama.cpp's llama-server, the reference (scripts/bootstrap builds it).")
    var reference = ".deps/llama-server/llama-server"

    @Option(name: .long, help: "Concurrent streams, comma-separated.")
    var widths = "1,8"

    @Option(name: .long, help: "Rounds; the servers' order rotates by round (ratios are medians of the per-round ratios).")
    var rounds = 3

    @OptionGroup var report: ReportOptions

    @OptionGroup var modelOptions: ModelOptions

    func validate() throws {
      guard widths.split(separator: ",").allSatisfy({ Int($0).map { $0 > 0 } == true }) else {
        throw ValidationError("--widths takes positive integers separated by commas, e.g. 1,8")
      }
    }

    func run() async throws {
      report.logging.bootstrap()
      let model = try modelOptions.makeModel()
      var settings = SpeculationBenchmark.Settings(
        modelPath: model.modelPath, threads: model.configuration.threads, hybridExecutable: Executables.sibling(named: "hybrid"),
        llamaServerPath: reference)
      settings.widths = widths.split(separator: ",").compactMap { Int($0) }
      settings.rounds = rounds
      try BenchCommand.publish(try await SpeculationBenchmark(settings: settings, progress: BenchCommand.progress).run(), to: report.output)
    }
  }

  struct Vision: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "vision",
      abstract: "An image turn on device (hybrid generate --mmproj --attach) vs llama.cpp's llama-mtmd-cli: the same pair, image and answer, whole runs, alternating rounds.")

    @Option(name: .long, help: "llama.cpp's llama-mtmd-cli, the reference (scripts/bootstrap builds it).")
    var reference = ".deps/llama-server/llama-mtmd-cli"

    @Option(name: .long, help: "llama.cpp's llama-server, the reference for image requests over HTTP.")
    var serverReference = ".deps/llama-server/llama-server"

    @Option(name: .long, help: "Image requests at once over HTTP, comma-separated (empty: no serving measurement).")
    var widths = "1,4"

    @Option(name: .long, help: "A folder with model.gguf and mmproj.gguf; made with SmolVLM-256M's sizes (random weights) when missing.")
    var pair = ".build/bench-vision/smolvlm-256m"

    @Option(name: .long, help: "The image (default: the bootstrap's photo).")
    var image = ".deps/photos/astronaut.png"

    @Option(name: .long, help: "Rounds (the order alternates).")
    var rounds = 3

    @Option(name: .long, help: "CPU threads, both sides.")
    var threads = ProcessInfo.processInfo.activeProcessorCount

    @OptionGroup var report: ReportOptions

    func run() async throws {
      report.logging.bootstrap()
      let folder = URL(fileURLWithPath: pair)
      try await VisionBenchmark.makePairIfMissing(in: folder, progress: BenchCommand.progress)
      var settings = VisionBenchmark.Settings(modelPath: folder.appendingPathComponent("model.gguf").path,
                                              projectorPath: folder.appendingPathComponent("mmproj.gguf").path, imagePath: image,
                                              hybridExecutable: Executables.sibling(named: "hybrid").path, referencePath: reference,
                                              threads: threads)
      settings.rounds = rounds
      settings.widths = widths.split(separator: ",").compactMap { Int($0) }.filter { $0 > 0 }
      settings.llamaServerPath = serverReference
      try BenchCommand.publish(try await VisionBenchmark(settings: settings, progress: BenchCommand.progress).run(), to: report.output)
    }
  }

  struct Embeddings: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "embeddings",
      abstract: "`hybrid serve`'s /v1/embeddings vs llama-server --embeddings --pooling mean over HTTP: texts/s at 1 and N clients; in process too.")

    @Option(name: .long, help: "llama.cpp's llama-server, the reference (scripts/bootstrap builds it).")
    var reference = ".deps/llama-server/llama-server"

    @Option(name: .long, help: "Texts embedded per round by each side.")
    var texts = 256

    @Option(name: .long, help: "Texts per request.")
    var textsPerRequest = 32

    @Option(name: .long, help: "Clients at once in the concurrent measurement.")
    var clients = 4

    @Option(name: .long, help: "Rounds; who goes first alternates by round (ratios are medians of the per-round ratios).")
    var rounds = 4

    @OptionGroup var report: ReportOptions

    @OptionGroup var modelOptions: ModelOptions

    func validate() throws {
      guard texts > 0, textsPerRequest > 0, clients > 0, rounds > 0 else {
        throw ValidationError("--texts, --texts-per-request, --clients and --rounds must be positive")
      }
    }

    func run() async throws {
      report.logging.bootstrap()
      let model = try modelOptions.makeModel()
      var settings = EmbeddingBenchmark.Settings(
        modelPath: model.modelPath, threads: model.configuration.threads, hybridExecutable: Executables.sibling(named: "hybrid"),
        llamaServerPath: reference)
      settings.texts = texts
      settings.textsPerRequest = textsPerRequest
      settings.clients = clients
      settings.rounds = rounds
      try BenchCommand.publish(try await EmbeddingBenchmark(settings: settings, progress: BenchCommand.progress).run(), to: report.output)
    }
  }

  struct Guided: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "guided",
      abstract: "Schema-constrained decoding tokens/s vs free decoding on the same prompt; schema → grammar compile time.")

    @Option(name: .long, help: "Repetitions (the median is reported).")
    var repetitions = 5

    @OptionGroup var report: ReportOptions

    @OptionGroup var modelOptions: ModelOptions

    func run() async throws {
      report.logging.bootstrap()
      var settings = GuidedDecodingBenchmark.Settings(model: try modelOptions.makeModel())
      settings.repetitions = repetitions
      try BenchCommand.publish(try await GuidedDecodingBenchmark(settings: settings, progress: BenchCommand.progress).run(), to: report.output)
    }
  }

  struct TensorFlowLite: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "tflite",
      abstract: "Interpreter invoke latency (median of N) vs Python's ai_edge_litert on the same models and threads.")

    @Argument(help: "The .tflite models (default: the bootstrap's test models).")
    var models: [String] = []

    @Option(name: .long, help: "A Python with ai_edge_litert, for the side-by-side reference (e.g. .deps/litert-venv/bin/python).")
    var reference: String?

    @Option(name: .long, help: "The reference timing script.")
    var referenceScript = "Benchmarks/Reference/litert_invoke_latency.py"

    @Option(name: .long, help: "Interpreter threads, for both sides.")
    var threads = 2

    @Option(name: .long, help: "Timed invokes per round, on both sides (each round keeps its median).")
    var runs = 100

    @Option(name: .long, help: "Untimed invokes before the timed ones, on both sides.")
    var warmUpRuns = 200

    @OptionGroup var report: ReportOptions


    func run() async throws {
      report.logging.bootstrap()
      let chosen = models.isEmpty ? BootstrapTFLiteModels.names.map(BootstrapTFLiteModels.path) : models
      var settings = TFLiteBenchmark.Settings(models: chosen, referencePython: reference, referenceScript: referenceScript)
      settings.threads = threads
      settings.runs = runs
      settings.warmUpRuns = warmUpRuns
      try BenchCommand.publish(try await TFLiteBenchmark(settings: settings, progress: BenchCommand.progress).run(), to: report.output)
    }
  }

  struct Hub: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "hub",
      abstract: "A Hugging Face Hub download on loopback: `hybrid models pull` MB/s and peak memory vs huggingface_hub and curl.",
      discussion: """
        Serves a file of pseudo-random bytes through the part of the Hub's API a download needs (in this process), \
        then fetches it into a fresh cache each round with this executable's sibling `hybrid models pull`, with \
        huggingface_hub's hf_hub_download (--python) and with curl -L, in rotating order. Needs about \
        2 × --size-mib of free disk in --work-dir; everything is deleted at the end.
        """)

    @Option(name: .customLong("size-mib"), help: "Size of the model file, in MiB.")
    var sizeMiB = 1024

    @Option(name: .long, help: "Rounds (each downloads once with every tool).")
    var rounds = 3

    @Option(name: .long, help: "A Python with huggingface_hub, for the reference (e.g. .deps/venv/bin/python).")
    var python: String?

    @Option(name: .long, help: "curl, for the second reference.")
    var curl = "curl"

    @Option(name: .long, help: "A real GGUF for the cache-hit rows: `hybrid generate --model hf:…` from the cache vs by path (default: the bootstrap's SmolLM2 when it is there).")
    var model: String?

    @Option(name: .long, help: "Where the temporary files go (default: the system's temporary directory).")
    var workDir: String?

    @Option(name: .long, help: "The `hybrid` executable whose `models pull` is measured (default: the one beside this executable).")
    var hybrid = Executables.sibling(named: "hybrid").path

    @OptionGroup var report: ReportOptions

    func validate() throws {
      guard sizeMiB > 0, rounds > 0 else { throw ValidationError("--size-mib and --rounds must be positive") }
    }

    /// The bootstrap's model, where the CLI finds it, if it is there.
    static var bootstrapModel: String? {
      let path = ModelLocator.defaultModelPath()
      return FileManager.default.fileExists(atPath: path) ? path : nil
    }

    func run() async throws {
      report.logging.bootstrap()
      var settings = HubDownloadBenchmark.Settings(hybridExecutable: hybrid)
      settings.sizeMiB = sizeMiB
      settings.rounds = rounds
      settings.python = python
      settings.curl = curl
      settings.modelPath = model ?? Self.bootstrapModel
      if let workDir { settings.workDirectory = URL(fileURLWithPath: workDir, isDirectory: true) }
      try BenchCommand.publish(try await HubDownloadBenchmark(settings: settings, progress: BenchCommand.progress).run(), to: report.output)
    }
  }

  struct Delivery: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "delivery",
      abstract: "Model delivery on loopback: `hybrid models get` download MB/s and peak memory vs curl; model-info requests/s under wrk.",
      discussion: """
        Starts a model registry in this process (temporary data directory, free loopback port), deploys a \
        file of pseudo-random bytes with ModelRegistryAdmin, then downloads it in interleaved rounds with \
        this executable's `models get` (a child process) and with curl. Needs about 3 × --size-mib of \
        free disk in --work-dir; everything is deleted at the end.
        """)

    @Option(name: .customLong("size-mib"), help: "Size of the model file, in MiB.")
    var sizeMiB = 1024

    @Option(name: .long, help: "Download rounds (each runs ours and curl back to back; the ratio judged is the median of the rounds' ratios).")
    var rounds = 7

    @Option(name: .long, help: "Seconds of each wrk run.")
    var wrkSeconds = 5

    @Option(name: .long, help: "wrk connections.")
    var wrkConnections = 32

    @Option(name: .long, help: "curl, for the reference download and upload.")
    var curl = "curl"

    @Option(name: .long, help: "wrk, for the requests/s of the model-info endpoint.")
    var wrk = "wrk"

    @Option(name: .long, help: "Where the temporary files go (default: the system's temporary directory).")
    var workDir: String?

    @Option(name: .long, help: "The `hybrid` executable whose `models get` is measured (default: the one beside this executable).")
    var hybrid = Executables.sibling(named: "hybrid").path

    @OptionGroup var report: ReportOptions

    func validate() throws {
      guard sizeMiB > 0 else { throw ValidationError("--size-mib must be positive") }
      guard rounds > 0 else { throw ValidationError("--rounds must be positive") }
      guard wrkSeconds > 0, wrkConnections > 0 else { throw ValidationError("--wrk-seconds and --wrk-connections must be positive") }
    }

    func run() async throws {
      report.logging.bootstrap()
      var settings = ModelDeliveryBenchmark.Settings(hybridExecutable: hybrid)
      settings.sizeMiB = sizeMiB
      settings.rounds = rounds
      settings.wrkSeconds = wrkSeconds
      settings.wrkConnections = wrkConnections
      settings.curl = curl
      settings.wrk = wrk
      if let workDir { settings.workDirectory = URL(fileURLWithPath: workDir, isDirectory: true) }
      try BenchCommand.publish(try await ModelDeliveryBenchmark(settings: settings, progress: BenchCommand.progress).run(), to: report.output)
    }
  }
}
