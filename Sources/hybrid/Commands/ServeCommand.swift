import ArgumentParser
import Foundation
import HybridAI
import HybridAIOnDevice
import HybridAIServer

/// `hybrid serve` — a self-hosted Gemini-compatible cloud on local GGUF models.
struct ServeCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "serve",
    abstract: "Serve local GGUF models through a Gemini-compatible REST API (v1beta).",
    discussion: """
      Endpoints: POST /v1beta/models/{model}:generateContent, :streamGenerateContent?alt=sse, \
      :countTokens; GET /v1beta/models, /v1beta/models/{model}. Concurrent requests are decoded \
      together in one llama.cpp batch. Stops gracefully on SIGINT or SIGTERM.
      Example: hybrid serve --port 8080 --model smollm2=.deps/models/SmolLM2-135M-Instruct.Q4_1.gguf --api-key secret
      """)

  @Option(name: .long, help: "Address to bind (default: loopback only).")
  var host = "127.0.0.1"

  @Option(name: .long, help: "TCP port; 0 picks a free one (printed on start).")
  var port = 8080

  @Option(name: .long, parsing: .singleValue,
          help: "A model to serve as NAME=PATH, or PATH (named after the file). Repeatable. Default: smollm2=<the bootstrap's SmolLM2>.")
  var model: [String] = []

  @Option(name: .long, parsing: .singleValue,
          help: "An API key clients must send (x-goog-api-key header or ?key=). Repeatable. Default: $HYBRIDAI_SERVER_API_KEY, else none required.")
  var apiKey: [String] = []

  @Option(name: .long, help: "Requests decoded together per model; more wait in line.")
  var maxConcurrentRequests = 8

  @Option(name: .long, help: "Context window per request, in tokens.")
  var contextSize = 4096

  @Option(name: .long, help: "CPU threads (default: all cores).")
  var threads: Int?

  @Option(name: .long, help: "Largest request body accepted, in bytes.")
  var maxRequestBytes = 4 << 20

  @OptionGroup var logging: LoggingOptions

  func validate() throws {
    guard (0...65535).contains(port) else { throw ValidationError("--port must be 0...65535") }
    guard maxConcurrentRequests > 0 else { throw ValidationError("--max-concurrent-requests must be positive") }
    _ = try modelSpecs()
  }

  func run() async throws {
    logging.bootstrap()
    var models: [ServedModel] = []
    for (name, path) in try modelSpecs() {
      var configuration = BatchedLanguageModel.Configuration()
      configuration.maxConcurrentSequences = maxConcurrentRequests
      configuration.contextSizePerSequence = contextSize
      if let threads { configuration.threads = threads }
      let batched = BatchedLanguageModel(modelPath: path, configuration: configuration)
      guard batched.isAvailable else {
        Terminal.status("error: model \(name) (\(path)) is \(batched.availability): \(batched.availabilityDetail ?? "")")
        throw ExitCode.failure
      }
      models.append(ServedModel(name: name, batched: batched))
    }
    let keys = Set(apiKey + (ProcessInfo.processInfo.environment["HYBRIDAI_SERVER_API_KEY"].map { [$0] } ?? []))
    let server = GeminiCompatibleServer(
      configuration: ServerConfiguration(host: host, port: port, apiKeys: keys, maxRequestBytes: maxRequestBytes),
      models: models)
    let names = models.map(\.name).joined(separator: ", ")
    let host = self.host
    try await server.run { port in
      Terminal.write("hybrid serve: listening on http://\(host):\(port) (models: \(names); API key \(keys.isEmpty ? "not required" : "required"))\n")
    }
    Terminal.status("hybrid serve: stopped")
  }

  /// `(name, path)` for each `--model`, or the default model.
  func modelSpecs() throws -> [(String, String)] {
    if model.isEmpty { return [("smollm2", ModelLocator.defaultModelPath())] }
    return try model.map { spec in
      if let equals = spec.firstIndex(of: "=") {
        let name = String(spec[..<equals]), path = String(spec[spec.index(after: equals)...])
        guard Self.isValidName(name), !path.isEmpty else {
          throw ValidationError("--model \(spec): expected NAME=PATH with NAME made of letters, digits, '-', '_' and '.'")
        }
        return (name, path)
      }
      var name = URL(fileURLWithPath: spec).deletingPathExtension().lastPathComponent.lowercased()
      name = String(name.map { Self.isValidName(String($0)) ? $0 : "-" })
      return (name, spec)
    }
  }

  static func isValidName(_ name: String) -> Bool {
    !name.isEmpty && name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "-_.".contains($0)) }
  }
}
