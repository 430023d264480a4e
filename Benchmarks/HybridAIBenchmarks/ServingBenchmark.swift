import Foundation
import HybridAIOnDevice
import HybridAIProcess

/// `hybrid serve` against llama.cpp's own `llama-server` over HTTP: the same model, threads,
/// parallel slots and context per slot, both with continuous batching, driven by one load
/// generator speaking OpenAI Chat Completions (``OpenAIStreamLoad``) at 1, 2, 4 and 8 concurrent
/// streaming requests. Aggregate decode tokens/s (target ≥ 1.0× llama-server at every width), TTFT
/// p50/p99 and inter-token latency p99; with `llama-batched-bench`, also the share of the engine's
/// in-process limit (target ≥ 0.95×); and first-request TTFT after start ÷ steady TTFT (``ColdStartBenchmark``).
///
/// Both servers run as child processes for the whole benchmark; each round measures them one after
/// the other at the same width (who goes first alternates by round), and the ratio shown is the
/// median of the per-round ratios.
public struct ServingBenchmark: Sendable {
  public struct Settings: Sendable {
    public var modelPath: String
    public var threads: Int
    /// The `hybrid` executable whose `serve` is measured.
    public var hybridExecutable: URL
    /// llama.cpp's `llama-server`, the reference.
    public var llamaServerPath: String
    /// llama.cpp's `llama-batched-bench`, the engine's in-process limit; `nil` leaves those rows out.
    public var batchedBenchPath: String?
    public var widths: [Int] = [1, 2, 4, 8]
    public var outputTokens = 128
    public var requestsPerStream = 2
    public var rounds = 4
    public var contextPerSlot = 512
    /// 0: greedy. Above it, sampled with each server's own default chain (``OpenAIStreamLoad/temperature``).
    public var temperature = 0.0
    /// Where the model's layers run: `hybrid serve` gets `--gpu-layers` and `--device` as they are,
    /// the references the layer count and device its placement comes to (``ReferenceOffload``).
    public var gpuLayers: GPULayers = .automatic
    public var device: String?

    public init(modelPath: String, threads: Int, hybridExecutable: URL, llamaServerPath: String, batchedBenchPath: String?) {
      self.modelPath = modelPath
      self.threads = threads
      self.hybridExecutable = hybridExecutable
      self.llamaServerPath = llamaServerPath
      self.batchedBenchPath = batchedBenchPath
    }
  }

  let settings: Settings
  let progress: @Sendable (String) -> Void

  public init(settings: Settings, progress: @escaping @Sendable (String) -> Void) {
    self.settings = settings
    self.progress = progress
  }

  /// `hybrid serve`'s offload flags (as given).
  var offloadArguments: [String] {
    ["--gpu-layers", settings.gpuLayers.description] + (settings.device.map { ["--device", $0] } ?? [])
  }

  /// Where `hybrid serve` puts the model with `slots` sequences of ``Settings/contextPerSlot`` tokens.
  func placement(slots: Int) throws -> ModelPlacement {
    try BatchedLanguageModel(modelPath: settings.modelPath, configuration: .init(
      maxConcurrentSequences: slots, contextSizePerSequence: settings.contextPerSlot, threads: settings.threads,
      gpuLayers: settings.gpuLayers, device: settings.device)).placement()
  }

  public func run() async throws -> BenchmarkReport {
    let coldStart = try await ColdStartBenchmark(benchmark: self, progress: progress).run()
    let slots = settings.widths.max() ?? 8
    let placement = try placement(slots: slots)
    let offload = ReferenceOffload(placement)
    let data = FileManager.default.temporaryDirectory.appendingPathComponent("hybrid-bench-serve-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: data) }
    progress("starting hybrid serve and llama-server (\(slots) slots of \(settings.contextPerSlot) tokens, \(settings.threads) threads)")
    let hybrid = try await ServerProcess(executable: settings.hybridExecutable, arguments: [
      "--model", "bench=\(settings.modelPath)", "--max-concurrent-requests", "\(slots)",
      "--context-size", "\(settings.contextPerSlot)", "--threads", "\(settings.threads)", "--data", data.path,
      "--log-level", "error"] + offloadArguments)
    let llama: LlamaServerReference.Running
    do {
      llama = try await LlamaServerReference(executable: settings.llamaServerPath)
        .start(model: settings.modelPath, threads: settings.threads, slots: slots, contextPerSlot: settings.contextPerSlot,
               offload: offload)
    } catch {
      await hybrid.stop()
      throw error
    }
    let ours = OpenAIStreamLoad(apiRoot: hybrid.baseURL.appendingPathComponent("v1beta/openai"), model: "bench",
                                outputTokens: settings.outputTokens, temperature: settings.temperature)
    let reference = OpenAIStreamLoad(apiRoot: llama.apiRoot, model: "bench", outputTokens: settings.outputTokens,
                                     temperature: settings.temperature)

    var measured: [Int: (ours: [OpenAIStreamLoad.Result], reference: [OpenAIStreamLoad.Result])] = [:]
    // llama-batched-bench runs inside each round too, right after the servers at the same width, so
    // the in-process limit is measured under the same machine conditions (a VM's speed drifts by
    // tens of percent over a benchmark's minutes).
    let batchedBench = settings.batchedBenchPath.map { LlamaBatchedBenchReference(executable: $0) }
    var engine: [Int: [Double]] = [:]
    var enginePromptTokens = 32
    var steal: [Int: RoundSteal] = [:]
    do {
      _ = try await ours.send(prompt: "Warm up.")   // weights, context, first-request costs
      _ = try await reference.send(prompt: "Warm up.")
      for round in 1...max(1, settings.rounds) {
        for width in settings.widths {
          // Odd rounds measure hybrid serve first, even rounds llama-server first, so neither always
          // meets the machine just after the other's burst (caches, clock, a neighbour's load).
          let oursFirst = round % 2 == 1
          progress("round \(round)/\(settings.rounds): \(width) stream(s) × \(settings.requestsPerStream) requests — "
            + (oursFirst ? "hybrid serve, then llama-server" : "llama-server, then hybrid serve")
            + (batchedBench == nil ? "" : ", then llama-batched-bench"))
          var mine = OpenAIStreamLoad.Result(), theirs = OpenAIStreamLoad.Result()
          for isOurs in oursFirst ? [true, false] : [false, true] {
            let (result, stolen) = try await CPUSteal.measuring {
              try await (isOurs ? ours : reference).run(width: width, requestsPerStream: settings.requestsPerStream)
            }
            if isOurs {
              mine = result
              steal[width, default: RoundSteal()].ours.append(stolen)
            } else {
              theirs = result
              steal[width, default: RoundSteal()].reference.append(stolen)
            }
            try await Task.sleep(for: .milliseconds(300))   // let the other's OpenMP threads stop spinning
          }
          measured[width, default: ([], [])].ours.append(mine)
          measured[width, default: ([], [])].reference.append(theirs)
          if let batchedBench {
            // The same work as the servers: prompts as long as hybrid serve's (chat template
            // included), not a fixed 32 tokens (shorter contexts cost less attention a step).
            let promptLength = mine.promptTokens.map(Double.init).median
            if promptLength > 0 { enginePromptTokens = Int(promptLength) }
            let (limit, stolen) = try await CPUSteal.measuring {
              try await batchedBench.run(model: settings.modelPath, promptTokens: enginePromptTokens,
                                         generatedTokens: settings.outputTokens, parallel: [width],
                                         threads: settings.threads, offload: offload)
            }
            engine[width, default: []].append(limit[width] ?? 0)
            steal[width, default: RoundSteal()].engine.append(stolen)
          }
        }
      }
    } catch {
      await stop(hybrid, llama, loads: [ours, reference])
      throw error
    }
    await stop(hybrid, llama, loads: [ours, reference])

    var report = BenchmarkReport(title: "Serving over HTTP — hybrid serve vs llama-server, "
      + "\(URL(fileURLWithPath: settings.modelPath).deletingPathExtension().lastPathComponent), \(settings.threads) threads")
    for width in settings.widths {
      guard let runs = measured[width] else { continue }
      let oursRate = runs.ours.map(\.tokensPerSecond), theirsRate = runs.reference.map(\.tokensPerSecond)
      let pairs = zip(oursRate, theirsRate).compactMap { $1 > 0 ? $0 / $1 : nil }
      let streams = "\(width) stream\(width == 1 ? "" : "s")"
      report.rows.append(.init(metric: "aggregate decode tokens/s, \(streams)", ours: oursRate.median,
                               reference: theirsRate.median, target: .atLeast(1.0), pairedRatio: pairs.median))
      let oursTTFT = runs.ours.flatMap(\.timesToFirstToken), theirsTTFT = runs.reference.flatMap(\.timesToFirstToken)
      report.rows.append(.init(metric: "TTFT p50 (ms), \(streams)", ours: oursTTFT.percentile(0.5),
                               reference: theirsTTFT.percentile(0.5), target: .informational))
      report.rows.append(.init(metric: "TTFT p99 (ms), \(streams)", ours: oursTTFT.percentile(0.99),
                               reference: theirsTTFT.percentile(0.99), target: .informational))
      report.rows.append(.init(metric: "inter-token latency p99 (ms), \(streams)",
                               ours: runs.ours.flatMap(\.interTokenGaps).percentile(0.99),
                               reference: runs.reference.flatMap(\.interTokenGaps).percentile(0.99), target: .informational))
      if let limits = engine[width] {
        let enginePairs = zip(oursRate, limits).compactMap { $1 > 0 ? $0 / $1 : nil }
        report.rows.append(.init(metric: "aggregate decode tokens/s, \(streams) (vs llama-batched-bench, in process)",
                                 ours: oursRate.median, reference: limits.median, target: .atLeast(0.95),
                                 pairedRatio: enginePairs.median))
      }
    }
    report.rows += coldStart
    let tokens = measured.values.flatMap { $0.ours.map(\.tokens) + $0.reference.map(\.tokens) }
    let tokenKind = settings.temperature == 0 ? "greedy"
      : "sampled (temperature \(settings.temperature), each server's own default chain: hybrid serve top-k 64 then top-p 0.9, llama-server top-k 40, top-p 0.95, min-p 0.05)"
    report.notes.append("one load generator (Swift, OpenAI Chat Completions streaming with include_usage) for both: "
      + "\(settings.requestsPerStream) requests per stream back to back, up to \(settings.outputTokens) \(tokenKind) tokens each, "
      + "\(settings.rounds) rounds, which server goes first alternating by round; ratios are medians of per-round ratios; tokens are the servers' own usage counts "
      + "(\(tokens.min() ?? 0)–\(tokens.max() ?? 0) per width and round)")
    if settings.batchedBenchPath != nil {
      report.notes.append("llama-batched-bench (-npp \(enginePromptTokens) — hybrid serve's prompt length — -ntg \(settings.outputTokens) -npl WIDTH, its generation speed, "
        + "same threads) runs in every round right after the two servers; its ratio is the median of the per-round ratios too")
      // The same program on the same input, round after round: how far it moves is how far the
      // machine's speed drifted during the run, i.e. how much any single round can be trusted.
      let drift = settings.widths.compactMap { width -> String? in
        guard let rates = engine[width], let low = rates.min(), let high = rates.max(), low > 0 else { return nil }
        return "\(width): \(Int(low.rounded()))–\(Int(high.rounded())) tok/s (\(Int(((high / low - 1) * 100).rounded()))%)"
      }
      if !drift.isEmpty {
        report.notes.append("machine drift — llama-batched-bench across rounds, per width: " + drift.joined(separator: "; ")
          + "; a spread of more than ~10% means this machine's speed moved during the run and single ratios are noise")
      }
    }
    // Every round's ratio, in round order: a median hides whether the rounds agreed or swung.
    let perRound = settings.widths.compactMap { width -> String? in
      guard let runs = measured[width], !runs.ours.isEmpty else { return nil }
      let limits = engine[width]
      let rounds = runs.ours.indices.map { index -> String in
        func ratio(_ reference: Double?) -> String {
          guard let reference, reference > 0 else { return "–" }
          return String(format: "%.2f", runs.ours[index].tokensPerSecond / reference)
        }
        let server = ratio(runs.reference.indices.contains(index) ? runs.reference[index].tokensPerSecond : nil)
        guard let limits else { return server }
        return "\(server) (\(ratio(limits.indices.contains(index) ? limits[index] : nil)))"
      }
      return "\(width): " + rounds.joined(separator: ", ")
    }
    if !perRound.isEmpty {
      report.notes.append("tokens/s ratio in each round, hybrid serve ÷ llama-server"
        + (engine.isEmpty ? "" : " (÷ llama-batched-bench)") + ", in round order, per width: " + perRound.joined(separator: "; "))
    }
    report.notes += Self.stealNotes(steal, measured: measured, engine: engine, widths: settings.widths)
    report.notes.append("hybrid serve --max-concurrent-requests \(slots) --context-size \(settings.contextPerSlot) "
      + "--threads \(settings.threads) \(offloadArguments.joined(separator: " ")); llama-server -np \(slots) "
      + "-c \(slots * settings.contextPerSlot) -t \(settings.threads) \(offload.arguments.joined(separator: " ")) "
      + "(continuous batching, its default); both on 127.0.0.1, the load generator in this process")
    report.notes.append("model on \(placement) (the references: \(offload.arguments.joined(separator: " ")))")
    if ours.retries.count + reference.retries.count > 0 {
      report.notes.append("requests sent again after the connection closed before any answer: hybrid serve "
        + "\(ours.retries.count), llama-server \(reference.retries.count)")
    }
    report.notes.append("cold start: each server started afresh with one slot (hybrid serve with --no-prompt-cache), "
      + "one request as soon as it is ready, then 6 sequential requests with different prompts whose median TTFT is "
      + "the steady state; ratio = first ÷ steady")
    report.notes.append("the two servers apply different chat templates (llama-server: the GGUF's Jinja template with its "
      + "default system prompt), so their prompts and answers differ slightly; tokens/s is per token either way")
    return report
  }

  /// The steal each side saw in each round (``CPUSteal``), in round order; `nil` where unknown.
  struct RoundSteal {
    var ours: [Double?] = []
    var reference: [Double?] = []
    var engine: [Double?] = []
  }

  /// A round counts as quiet when every side compared saw less steal than this.
  static let quietSteal = 0.05

  /// What the hypervisor took during each side, and the ratios over the quiet rounds alone (where
  /// the machine, not only the order, was the same for both sides); empty where steal is unknown.
  static func stealNotes(_ steal: [Int: RoundSteal], measured: [Int: (ours: [OpenAIStreamLoad.Result], reference: [OpenAIStreamLoad.Result])],
                         engine: [Int: [Double]], widths: [Int]) -> [String] {
    let all = steal.values
    let sides = [("hybrid serve", all.flatMap(\.ours)), ("llama-server", all.flatMap(\.reference)),
                 ("llama-batched-bench", all.flatMap(\.engine))]
      .compactMap { name, values -> String? in
        let known = values.compactMap { $0 }.map { $0 * 100 }
        return known.isEmpty ? nil : "\(name) \(Int(known.median.rounded()))% (\(Int((known.max() ?? 0).rounded()))%)"
      }
    guard !sides.isEmpty else { return [] }
    var notes = ["CPU steal (the hypervisor running other guests on these CPUs; /proc/stat) during each side, "
      + "median (highest) over rounds: " + sides.joined(separator: ", ")]
    let quietPercent = Int(quietSteal * 100)
    let quiet = widths.compactMap { width -> String? in
      guard let rounds = steal[width], let runs = measured[width] else { return nil }
      let oursRates = runs.ours.map(\.tokensPerSecond)
      // Our rate ÷ the other side's, over the rounds in which both saw less steal than quietSteal.
      func quietRatios(against rates: [Double], steal theirSteal: [Double?]) -> [Double] {
        oursRates.indices.compactMap { index in
          guard index < rates.count, index < rounds.ours.count, index < theirSteal.count, rates[index] > 0,
                [rounds.ours[index], theirSteal[index]].allSatisfy({ $0.map { $0 < quietSteal } ?? false }) else { return nil }
          return oursRates[index] / rates[index]
        }
      }
      func summary(_ ratios: [Double], _ name: String) -> String {
        ratios.isEmpty ? "" : ", ÷ \(name) \(String(format: "%.2f", ratios.median))×"
      }
      let serverRatios = quietRatios(against: runs.reference.map(\.tokensPerSecond), steal: rounds.reference)
      var text = "\(width): \(serverRatios.count) of \(oursRates.count) rounds" + summary(serverRatios, "llama-server")
      if let limits = engine[width] {
        let engineRatios = quietRatios(against: limits, steal: rounds.engine)
        text += "; \(engineRatios.count) rounds" + summary(engineRatios, "llama-batched-bench")
      }
      return text
    }
    notes.append("quiet rounds (steal under \(quietPercent)% for both sides compared) and their median ratios, per width: "
      + quiet.joined(separator: "; ") + " — steal explains only part of a VM's drift (a neighbour's use of the host's "
      + "caches and memory does not show in it), so read these beside the drift line")
    return notes
  }

  /// Stops both servers and the load generators' HTTP clients.
  private func stop(_ hybrid: ServerProcess, _ llama: LlamaServerReference.Running, loads: [OpenAIStreamLoad]) async {
    await hybrid.stop()
    await llama.stop()
    for load in loads { await load.shutdown() }
  }
}
