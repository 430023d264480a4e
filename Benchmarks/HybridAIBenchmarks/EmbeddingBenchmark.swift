import Foundation
import HybridAI
import HybridAIOnDevice
import HybridAIOpenAI
import HybridAIProcess
import Synchronization

/// Embedding throughput: `hybrid serve`'s `/v1/embeddings` against llama.cpp's own `llama-server
/// --embeddings --pooling mean` over HTTP, with the same model, threads and client (`OpenAIModel`),
/// texts per second at one client and at several at once; and the on-device model in process.
///
/// Both servers run as child processes for the whole benchmark; each round embeds the same texts
/// on both, which goes first alternating by round, and the ratio is the median of the per-round
/// ratios (a shared VM's speed drifts between rounds). The vectors are compared too: both servers
/// run llama.cpp's mean pooling on the same file, so they must agree.
public struct EmbeddingBenchmark: Sendable {
  public struct Settings: Sendable {
    public var modelPath: String
    public var threads: Int
    /// The `hybrid` executable whose `serve` is measured.
    public var hybridExecutable: URL
    /// llama.cpp's `llama-server`, the reference.
    public var llamaServerPath: String
    /// Texts embedded per round by each side.
    public var texts = 256
    /// Texts in one request.
    public var textsPerRequest = 32
    /// Clients sending requests at once, in the second measurement.
    public var clients = 4
    public var rounds = 4

    public init(modelPath: String, threads: Int, hybridExecutable: URL, llamaServerPath: String) {
      self.modelPath = modelPath
      self.threads = threads
      self.hybridExecutable = hybridExecutable
      self.llamaServerPath = llamaServerPath
    }
  }

  public let settings: Settings
  private let progress: @Sendable (String) -> Void

  public init(settings: Settings, progress: @escaping @Sendable (String) -> Void = { _ in }) {
    self.settings = settings
    self.progress = progress
  }

  /// Texts of 10 to 70 words, different from one another, the same on every run.
  static func texts(count: Int) -> [String] {
    let words = ["light", "river", "engine", "bread", "theory", "window", "market", "signal", "forest", "protein",
                 "harbour", "ledger", "voltage", "garden", "statute", "orbit", "glacier", "recipe", "circuit", "meadow"]
    return (0..<count).map { index in
      let length = 10 + (index * 37) % 61
      return "Passage \(index): " + (0..<length).map { words[(index * 7 + $0 * 13 + $0 * $0) % words.count] }.joined(separator: " ") + "."
    }
  }

  public func run() async throws -> BenchmarkReport {
    let texts = Self.texts(count: settings.texts)
    let model = SystemLanguageModel(modelPath: settings.modelPath, configuration: .init(threads: settings.threads))
    let data = FileManager.default.temporaryDirectory.appendingPathComponent("hybrid-bench-embed-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: data) }
    let slots = 16
    progress("starting hybrid serve and llama-server --embeddings --pooling mean (\(settings.threads) threads)")
    let hybrid = try await ServerProcess(executable: settings.hybridExecutable, arguments: [
      "--model", "bench=\(settings.modelPath)", "--threads", "\(settings.threads)", "--data", data.path, "--log-level", "error"])
    let llama: LlamaServerReference.Running
    do {
      llama = try await LlamaServerReference(executable: settings.llamaServerPath).start(
        model: settings.modelPath, threads: settings.threads, slots: slots, contextPerSlot: 512,
        offload: ReferenceOffload(try model.placement()), extraArguments: ["--embeddings", "--pooling", "mean", "-b", "512", "-ub", "512"])
    } catch {
      await hybrid.stop()
      throw error
    }
    defer { Task { await hybrid.stop(); await llama.stop() } }
    let ours = OpenAIModel(name: "bench", apiKey: nil, baseURL: hybrid.baseURL.appendingPathComponent("v1"))
    let reference = OpenAIModel(name: "bench", apiKey: nil, baseURL: llama.apiRoot)

    // Warm up, and compare the vectors with llama-server's of each text alone (its reference: see the note).
    let sample = Array(texts.prefix(8))
    var alone: [Embedding] = []
    for text in sample { alone.append(try await reference.embedding(for: text)) }
    let lowest = { (vectors: [Embedding]) in zip(vectors, alone).map { $0.cosineSimilarity(to: $1) }.min() ?? 0 }
    let oursAgree = lowest(try await ours.embeddings(for: sample).embeddings)
    let referenceAgrees = lowest(try await reference.embeddings(for: sample).embeddings)

    var single = Pairs(), concurrent = Pairs(), tokens = (ours: 0, reference: 0)
    for round in 1...max(1, settings.rounds) {
      let oursFirst = round % 2 == 1
      progress("round \(round)/\(settings.rounds): \(texts.count) texts, \(settings.textsPerRequest) per request, 1 client then "
        + "\(settings.clients); " + (oursFirst ? "hybrid serve first" : "llama-server first"))
      for clients in [1, settings.clients] {
        var rates = (ours: 0.0, reference: 0.0)
        for side in oursFirst ? [true, false] : [false, true] {
          let (rate, counted) = try await textsPerSecond(texts, with: side ? ours : reference, clients: clients)
          if side { rates.ours = rate; tokens.ours = counted } else { rates.reference = rate; tokens.reference = counted }
        }
        clients == 1 ? single.append(rates) : concurrent.append(rates)
      }
    }
    progress("in process: SystemLanguageModel.embeddings, \(texts.count) texts")
    var inProcess: [Double] = []
    for _ in 1...max(1, settings.rounds) {
      let started = ContinuousClock.now
      for start in stride(from: 0, to: texts.count, by: settings.textsPerRequest) {
        _ = try await model.embeddings(for: Array(texts[start..<min(texts.count, start + settings.textsPerRequest)]))
      }
      inProcess.append(Double(texts.count) / (ContinuousClock.now - started).seconds)
    }

    var report = BenchmarkReport(title: "Embeddings over HTTP — hybrid serve vs llama-server --embeddings, "
      + "\(URL(fileURLWithPath: settings.modelPath).lastPathComponent), \(settings.threads) threads")
    report.rows.append(.init(metric: "texts/s, 1 client", ours: single.ours.median, reference: single.reference.median,
                             target: .atLeast(0.9), pairedRatio: single.ratios.median))
    report.rows.append(.init(metric: "texts/s, \(settings.clients) clients", ours: concurrent.ours.median,
                             reference: concurrent.reference.median, target: .atLeast(0.9), pairedRatio: concurrent.ratios.median))
    report.rows.append(.init(metric: "texts/s in process (SystemLanguageModel)", ours: inProcess.median, reference: nil,
                             target: .informational))
    report.notes.append("model on \(model.placementText); \(texts.count) texts of 10–70 words, \(settings.textsPerRequest) per request, "
      + "\(settings.rounds) rounds, which server goes first alternating; ratios are medians of per-round ratios")
    report.notes.append("tokens per round as each server counts them: hybrid serve \(tokens.ours), llama-server \(tokens.reference)")
    report.notes.append("llama-server -np \(slots) -c \(slots * 512) -b 512 -ub 512 --embeddings --pooling mean; hybrid serve defaults "
      + "(one embedding context, up to 64 texts per decode, 512 tokens)")
    report.notes.append(String(format: "vectors of \(sample.count) texts sent in one request, against llama-server's of each text "
      + "sent alone: hybrid serve's lowest cosine similarity %.6f, llama-server's own %.6f (it decodes a request's texts in "
      + "several slots at once, and all but the first then differ from the text alone)", oursAgree, referenceAgrees))
    report.notes.append("per-round ratios, 1 client " + single.ratios.slashList(decimals: 2) + "; \(settings.clients) clients "
      + concurrent.ratios.slashList(decimals: 2))
    return report
  }

  /// Embeds `texts` in requests of ``Settings/textsPerRequest`` from `clients` clients at once (each
  /// taking the next request when its last is answered): texts per second, and the tokens counted.
  private func textsPerSecond(_ texts: [String], with model: OpenAIModel, clients: Int) async throws -> (Double, Int) {
    let requests = stride(from: 0, to: texts.count, by: settings.textsPerRequest).map {
      Array(texts[$0..<min(texts.count, $0 + settings.textsPerRequest)])
    }
    let next = Counter()
    let started = ContinuousClock.now
    let tokens = try await withThrowingTaskGroup(of: Int.self) { group in
      for _ in 0..<clients {
        group.addTask {
          var counted = 0
          while let index = next.take(below: requests.count) {
            counted += try await model.embeddings(for: requests[index]).promptTokens ?? 0
          }
          return counted
        }
      }
      return try await group.reduce(0, +)
    }
    return (Double(texts.count) / (ContinuousClock.now - started).seconds, tokens)
  }

  /// Both sides' rates per round, and their ratios.
  private struct Pairs {
    var ours: [Double] = [], reference: [Double] = [], ratios: [Double] = []
    mutating func append(_ rates: (ours: Double, reference: Double)) {
      ours.append(rates.ours)
      reference.append(rates.reference)
      if rates.reference > 0 { ratios.append(rates.ours / rates.reference) }
    }
  }
}

/// Hands out 0, 1, 2, … to concurrent clients.
private final class Counter: Sendable {
  private let value = Mutex(0)
  func take(below limit: Int) -> Int? {
    value.withLock { current in
      guard current < limit else { return nil }
      defer { current += 1 }
      return current
    }
  }
}
