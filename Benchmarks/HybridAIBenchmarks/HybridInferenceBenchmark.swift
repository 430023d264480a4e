import AsyncHTTPClient
import Foundation
import HybridAI
import HybridAIGemini
import HybridAIOnDevice
import HybridAIProcess
import HybridAIServer
import HybridAIServing
import NIOCore

/// Measures what hybrid inference costs, through the public APIs:
///
/// - Fallback latency: time to first token of a prefer-cloud session whose cloud refuses
///   connections (it falls back to on-device) vs an on-device-only session; target ≤ 20 ms extra.
/// - Server scaling: aggregate output tokens/s of `hybrid serve` (in process, real HTTP on loopback,
///   streaming) at 1, 2, 4 and 8 concurrent streams, side by side with llama.cpp's
///   `llama-batched-bench` at the same parallel levels; target: 4 streams ≥ 2× one stream.
public struct HybridInferenceBenchmark: Sendable {
  public struct Settings: Sendable {
    public var model: SystemLanguageModel
    public var batchedBenchPath: String?
    public var repetitions = 5
    public var streamTokens = 128
    public var concurrency = [1, 2, 4, 8]

    public init(model: SystemLanguageModel, batchedBenchPath: String?) {
      self.model = model
      self.batchedBenchPath = batchedBenchPath
    }
  }

  public let settings: Settings
  private let progress: @Sendable (String) -> Void

  public init(settings: Settings, progress: @escaping @Sendable (String) -> Void = { _ in }) {
    self.settings = settings
    self.progress = progress
  }

  public func run() async throws -> BenchmarkReport {
    var report = BenchmarkReport(title: "Hybrid inference — \(settings.model.modelIdentifier), \(settings.model.configuration.threads) threads")
    report.notes.append("model on \(settings.model.placementText)")
    try await measureFallback(into: &report)
    try await measureServerScaling(into: &report)
    return report
  }

  // MARK: - Fallback latency

  private func measureFallback(into report: inout BenchmarkReport) async throws {
    let refusing = try LoopbackSocket(listening: false)   // bound, not listening: connections are refused
    defer { refusing.close() }
    let offlineCloud = GeminiModel(name: "unreachable", apiKey: nil, baseURL: URL(string: "http://127.0.0.1:\(refusing.port)")!)
    let options = GenerationOptions(sampling: .greedy, maximumResponseTokens: 4)
    let prompt = "Say hello to the benchmark."
    var direct: [Double] = [], fallback: [Double] = []
    _ = try await GenerativeModelSession(model: settings.model).respond(to: prompt, options: options)   // warm-up: weights
    for round in 1...max(1, settings.repetitions) {
      progress("fallback round \(round)/\(settings.repetitions)")
      direct.append(try await Self.timeToFirstToken(GenerativeModelSession(model: settings.model), prompt, options))
      let hybrid = GenerativeModelSession(model: .hybrid(primary: offlineCloud, secondary: settings.model))
      fallback.append(try await Self.timeToFirstToken(hybrid, prompt, options))
    }
    let ours = fallback.median * 1000, reference = direct.median * 1000
    report.rows.append(.init(metric: "prefer-cloud, cloud refuses: time to first token (ms)", ours: ours,
                             reference: reference, target: .excessAtMost(20, unit: "ms")))
    report.notes.append("fallback TTFT per round (ms): " + fallback.map { $0 * 1000 }.slashList(decimals: 1)
      + "; on-device only: " + direct.map { $0 * 1000 }.slashList(decimals: 1))
  }

  private static func timeToFirstToken(_ session: GenerativeModelSession, _ prompt: String,
                                       _ options: GenerationOptions) async throws -> Double {
    let started = ContinuousClock.now
    let stream = session.streamResponse(to: prompt, options: options)
    var first: Duration?
    for try await _ in stream where first == nil { first = ContinuousClock.now - started }
    let response = try await stream.collect()
    guard response.rawResponse.source == .onDevice, let first else { throw BenchmarkError.noTimings }
    return first.seconds
  }

  // MARK: - Server scaling

  private func measureServerScaling(into report: inout BenchmarkReport) async throws {
    var configuration = BatchedLanguageModel.Configuration()
    configuration.maxConcurrentSequences = settings.concurrency.max() ?? 8
    configuration.contextSizePerSequence = 512
    configuration.threads = settings.model.configuration.threads
    configuration.gpuLayers = settings.model.configuration.gpuLayers
    configuration.device = settings.model.configuration.device
    let batched = BatchedLanguageModel(modelPath: settings.model.modelPath, configuration: configuration)
    if let placement = try? batched.placement() { report.notes.append("server model on \(placement)") }
    let server = HybridServer(
      configuration: ServerConfiguration(host: "127.0.0.1", port: 0),
      components: [GeminiCompatibleAPI(models: [ServedModel(name: "bench", model: batched, contextSize: batched.configuration.contextSizePerSequence)])])
    let (ports, portContinuation) = AsyncStream.makeStream(of: Int.self)
    let serverTask = Task { try await server.run { portContinuation.yield($0) } }
    defer { serverTask.cancel() }
    var portIterator = ports.makeAsyncIterator()
    guard let port = await portIterator.next() else { throw BenchmarkError.referenceFailed("server did not start") }
    let client = GeminiModel(name: "bench", apiKey: nil, baseURL: URL(string: "http://127.0.0.1:\(port)")!)

    _ = try await streamTokens(client, index: 0, tokens: 8)   // warm-up: weights and context
    var aggregate: [Int: Double] = [:]
    for level in settings.concurrency {
      var rates: [Double] = []
      for round in 1...max(1, settings.repetitions / 2) {
        progress("server: \(level) concurrent stream(s), round \(round)")
        let started = ContinuousClock.now
        let tokens = try await withThrowingTaskGroup(of: Int.self) { group in
          for index in 0..<level { group.addTask { try await streamTokens(client, index: index, tokens: settings.streamTokens) } }
          return try await group.reduce(0, +)
        }
        rates.append(Double(tokens) / (ContinuousClock.now - started).seconds)
      }
      aggregate[level] = rates.median
    }

    var reference: [Int: Double] = [:]
    if let path = settings.batchedBenchPath {
      progress("llama-batched-bench at \(settings.concurrency.map(String.init).joined(separator: ",")) parallel sequences")
      let offload = try ReferenceOffload(settings.model.placement())
      reference = try await LlamaBatchedBenchReference(executable: path).run(
        model: settings.model.modelPath, promptTokens: 32, generatedTokens: settings.streamTokens,
        parallel: settings.concurrency, threads: settings.model.configuration.threads, offload: offload)
    }
    for level in settings.concurrency {
      report.rows.append(.init(metric: "server aggregate tokens/s, \(level) stream(s) (vs llama-batched-bench)",
                               ours: aggregate[level] ?? 0, reference: reference[level], target: .informational))
    }
    if let one = aggregate[1], let four = aggregate[4] {
      report.rows.append(.init(metric: "server aggregate tokens/s, 4 streams vs 1 stream", ours: four, reference: one,
                               target: .atLeast(2.0)))
    }
    report.notes.append("server: \(settings.streamTokens) greedy tokens per stream over HTTP/SSE (GeminiModel client), "
      + "median of \(max(1, settings.repetitions / 2)) rounds; the reference decodes the same counts in-process without HTTP")
  }

  /// Streams one answer from the server; returns its output tokens.
  private func streamTokens(_ client: GeminiModel, index: Int, tokens: Int) async throws -> Int {
    let session = GenerativeModelSession(model: client)
    let response = try await session.respond(
      to: "Story \(index): write a long tale about a lighthouse keeper number \(index).",
      options: .gemini(GenerationConfig(temperature: 0, topK: 1, maxOutputTokens: tokens)))
    return response.usage.outputTokens
  }


}
