import Foundation
import HybridAIProcess

/// Speculative decoding over HTTP: `hybrid serve` with its n-gram drafts and without them, against
/// llama.cpp's `llama-server` plain and with each of its n-gram speculation types, on the answers
/// speculation is for (repeating a text, editing code) and on one it is not (a story), at 1 and 8
/// streams, greedy. All servers run for the whole benchmark; in each round every server answers
/// the same requests one after the other (the order rotates by round), and ratios are medians of
/// the per-round ratios.
public struct SpeculationBenchmark: Sendable {
  public struct Settings: Sendable {
    public var modelPath: String
    public var threads: Int
    /// The `hybrid` executable whose `serve` is measured.
    public var hybridExecutable: URL
    /// llama.cpp's `llama-server`, the reference.
    public var llamaServerPath: String
    public var widths: [Int] = [1, 8]
    public var rounds = 3
    /// The most tokens of an answer (the repeated texts end before it).
    public var outputTokens = 256
    public var contextPerSlot = 1024
    /// llama-server's `--spec-type` values measured; the best of them is the reference.
    public var speculationTypes = ["ngram-mod", "ngram-map-k", "ngram-cache", "ngram-simple"]

    public init(modelPath: String, threads: Int, hybridExecutable: URL, llamaServerPath: String) {
      self.modelPath = modelPath
      self.threads = threads
      self.hybridExecutable = hybridExecutable
      self.llamaServerPath = llamaServerPath
    }
  }

  /// A kind of request: its name and prompt.
  struct Workload: Sendable {
    let name: String
    let prompt: String
    /// Whether its answer repeats the prompt (speculation's case) or not (where it must cost nothing).
    let repeatsPrompt: Bool
  }

  static let workloads = [
    Workload(name: "rewrite", prompt: "Repeat this text exactly:\n\n" + SpeculationBenchmark.paragraph, repeatsPrompt: true),
    Workload(name: "code edit", prompt: "Rename the variable `count` to `total` in this code and output only the code:\n\n"
      + SpeculationBenchmark.code, repeatsPrompt: true),
    Workload(name: "chat", prompt: "Write a short story about a robot who learns to paint.", repeatsPrompt: false),
  ]

  static let paragraph = """
    The old lighthouse stood at the edge of the cliff for more than two hundred years. Every night its keeper climbed \
    the narrow stairs, trimmed the wick and polished the great lens until it shone. Ships passing in the dark looked for \
    its steady beam and knew that the rocks were near. When the storms came in winter, the waves broke against the \
    stones below and salt spray reached the windows at the top. The keeper wrote each storm in a thick book: the date, \
    the wind, the height of the waves and the names of the ships that passed safely. Years later, when the light was \
    made automatic, the book was given to the town museum, where children still read about the nights when a single \
    lamp kept sailors alive.
    """

  static let code = """
    def summarize(values):
        count = 0
        largest = None
        for value in values:
            count += 1
            if largest is None or value > largest:
                largest = value
        average = sum(values) / count if count else 0
        return {"count": count, "largest": largest, "average": average}
    """

  /// One server measured: its name and load generator.
  private struct Contender {
    let name: String
    let load: OpenAIStreamLoad
  }

  let settings: Settings
  let progress: @Sendable (String) -> Void

  public init(settings: Settings, progress: @escaping @Sendable (String) -> Void) {
    self.settings = settings
    self.progress = progress
  }

  public func run() async throws -> BenchmarkReport {
    let slots = settings.widths.max() ?? 8
    let data = FileManager.default.temporaryDirectory.appendingPathComponent("hybrid-bench-speculation-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: data) }
    var hybrids: [ServerProcess] = []
    var llamas: [LlamaServerReference.Running] = []
    var contenders: [Contender] = []
    func stopAll() async {
      for server in hybrids { await server.stop() }
      for server in llamas { await server.stop() }
      for contender in contenders { await contender.load.shutdown() }
    }
    do {
      let placement = try ReferenceOffload(ServingBenchmark(settings: .init(
        modelPath: settings.modelPath, threads: settings.threads, hybridExecutable: settings.hybridExecutable,
        llamaServerPath: settings.llamaServerPath, batchedBenchPath: nil), progress: progress).placement(slots: slots))
      for (name, draftMax) in [("hybrid serve", nil), ("hybrid serve --draft-max 0", 0)] as [(String, Int?)] {
        progress("starting \(name)")
        let server = try await ServerProcess(executable: settings.hybridExecutable, arguments: [
          "--model", "bench=\(settings.modelPath)", "--max-concurrent-requests", "\(slots)",
          "--context-size", "\(settings.contextPerSlot)", "--threads", "\(settings.threads)",
          "--data", data.appendingPathComponent("\(hybrids.count)").path, "--log-level", "error",
        ] + (draftMax.map { ["--draft-max", "\($0)"] } ?? []))
        hybrids.append(server)
        contenders.append(Contender(name: name, load: load(server.baseURL.appendingPathComponent("v1beta/openai"))))
      }
      for type in [nil] + settings.speculationTypes.map(Optional.some) {
        let name = type.map { "llama-server --spec-type \($0)" } ?? "llama-server"
        progress("starting \(name)")
        let server = try await LlamaServerReference(executable: settings.llamaServerPath).start(
          model: settings.modelPath, threads: settings.threads, slots: slots, contextPerSlot: settings.contextPerSlot,
          offload: placement, extraArguments: type.map { ["--spec-type", $0] } ?? [])
        llamas.append(server)
        contenders.append(Contender(name: name, load: load(server.apiRoot)))
      }
      for contender in contenders { _ = try await contender.load.send(prompt: "Warm up.") }

      // measured[workload][width][contender] = one result per round
      var measured: [String: [Int: [String: [OpenAIStreamLoad.Result]]]] = [:]
      for round in 1...max(1, settings.rounds) {
        for workload in Self.workloads {
          for width in settings.widths {
            progress("round \(round)/\(settings.rounds): \(workload.name), \(width) stream(s)")
            // Rotate who goes first, so no server always meets the machine right after another's burst.
            let order = contenders.indices.map { contenders[($0 + round) % contenders.count] }
            for contender in order {
              // Two requests per stream: the second finds its prompt cached, as a conversation's next turn does.
              let result = try await contender.load.run(width: width, requestsPerStream: 2) { _, _ in workload.prompt }
              measured[workload.name, default: [:]][width, default: [:]][contender.name, default: []].append(result)
              try await Task.sleep(for: .milliseconds(300))   // let OpenMP threads stop spinning
            }
          }
        }
      }
      await stopAll()
      return report(measured, names: contenders.map(\.name), placement: placement)
    } catch {
      await stopAll()
      throw error
    }
  }

  private func load(_ apiRoot: URL) -> OpenAIStreamLoad {
    OpenAIStreamLoad(apiRoot: apiRoot, model: "bench", outputTokens: settings.outputTokens)
  }

  private func report(_ measured: [String: [Int: [String: [OpenAIStreamLoad.Result]]]], names: [String],
                      placement: ReferenceOffload) -> BenchmarkReport {
    let ours = names[0], oursPlain = names[1], llamaPlain = names[2]
    let llamaTypes = Array(names.dropFirst(3))
    var report = BenchmarkReport(title: "Speculative decoding — hybrid serve vs llama-server's n-gram speculation, "
      + "\(URL(fileURLWithPath: settings.modelPath).deletingPathExtension().lastPathComponent), \(settings.threads) threads")
    var acceptance: [String] = []
    var equality: [String] = []
    var perType: [String] = []
    for workload in Self.workloads {
      for width in settings.widths {
        guard let runs = measured[workload.name]?[width] else { continue }
        let rates = runs.mapValues { $0.map(\.tokensPerSecond) }
        /// Our rate ÷ another's, round by round, and the median of those.
        func pairedRatio(_ name: String, _ against: String) -> Double? {
          guard let mine = rates[name], let theirs = rates[against] else { return nil }
          return zip(mine, theirs).compactMap { $1 > 0 ? $0 / $1 : nil }.median
        }
        let best = llamaTypes.max { (rates[$0]?.median ?? 0) < (rates[$1]?.median ?? 0) } ?? llamaPlain
        let streams = "\(width) stream\(width == 1 ? "" : "s")"
        let label = "\(workload.name), \(streams)"
        let oursRate = rates[ours]?.median ?? 0
        if workload.repeatsPrompt {
          report.rows.append(.init(metric: "\(label): tokens/s vs \(best)", ours: oursRate,
                                   reference: rates[best]?.median, target: width == 1 && workload.name == "rewrite" ? .atLeast(1.2) : .informational,
                                   pairedRatio: pairedRatio(ours, best)))
          report.rows.append(.init(metric: "\(label): tokens/s vs llama-server without speculation", ours: oursRate,
                                   reference: rates[llamaPlain]?.median,
                                   target: width == 1 && workload.name == "rewrite" ? .atLeast(2.4) : (width >= 8 ? .atLeast(1.0) : .informational),
                                   pairedRatio: pairedRatio(ours, llamaPlain)))
        } else {
          report.rows.append(.init(metric: "\(label): tokens/s vs llama-server without speculation", ours: oursRate,
                                   reference: rates[llamaPlain]?.median, target: width >= 8 ? .atLeast(1.0) : .informational,
                                   pairedRatio: pairedRatio(ours, llamaPlain)))
        }
        report.rows.append(.init(metric: "\(label): speculation on ÷ off (hybrid serve)", ours: oursRate,
                                 reference: rates[oursPlain]?.median, target: .atLeast(workload.repeatsPrompt ? 1.0 : 0.97),
                                 pairedRatio: pairedRatio(ours, oursPlain)))
        let drafted = runs.mapValues { results in
          (results.reduce(0) { $0 + $1.draftTokens }, results.reduce(0) { $0 + $1.acceptedDraftTokens })
        }
        let shown = [ours, best].compactMap { name -> String? in
          guard let (all, taken) = drafted[name], all > 0 else { return nil }
          return "\(name) \(taken)/\(all) (\(Int((Double(taken) / Double(all) * 100).rounded()))%)"
        }
        if !shown.isEmpty { acceptance.append("\(label): " + shown.joined(separator: ", ")) }
        let texts = runs.mapValues { $0.flatMap(\.texts) }
        if let on = texts[ours], let off = texts[oursPlain] {
          let same = zip(on, off).filter { $0 == $1 }.count
          equality.append("\(label): \(same)/\(min(on.count, off.count))")
        }
        perType.append("\(label): " + ([llamaPlain] + llamaTypes).map { name in
          "\(name.replacingOccurrences(of: "llama-server --spec-type ", with: "")) \(Int((rates[name]?.median ?? 0).rounded()))"
        }.joined(separator: ", "))
      }
    }
    report.notes.append("drafted tokens kept (kept/drafted): " + acceptance.joined(separator: "; "))
    report.notes.append("greedy answers identical with and without hybrid serve's speculation (answers compared): "
      + equality.joined(separator: "; "))
    report.notes.append("llama-server tokens/s by --spec-type (plain first): " + perType.joined(separator: "; "))
    report.notes.append("each cell: every server answers the workload's prompt twice on one stream (the second time "
      + "from its prompt cache), or once on each of WIDTH streams, greedy, up to \(settings.outputTokens) tokens; tokens/s = the servers' own output "
      + "token counts ÷ wall time; \(settings.rounds) rounds, order rotating by round; ratios are medians of per-round ratios")
    report.notes.append("hybrid serve --max-concurrent-requests \(settings.widths.max() ?? 8) --context-size "
      + "\(settings.contextPerSlot) --threads \(settings.threads) [--draft-max 0]; llama-server -np \(settings.widths.max() ?? 8) "
      + "-c \((settings.widths.max() ?? 8) * settings.contextPerSlot) -t \(settings.threads) \(placement.arguments.joined(separator: " ")) "
      + "[--spec-type TYPE]; all on 127.0.0.1")
    return report
  }
}
