import Foundation
import HybridAIOnDevice
import HybridAIProcess

/// An image turn on device against llama.cpp's own `llama-mtmd-cli`, in the same run: the same
/// model pair, image, prompt, threads and greedy answer length, both as processes from start to
/// exit (loading the model and projector, encoding every slice of the image, evaluating its
/// embeddings, answering). Rounds alternate which goes first; the ratio is the median of the
/// per-round ratios (ours ÷ theirs: lower is faster). Both must give the same answer.
public struct VisionBenchmark: Sendable {
  public struct Settings: Sendable {
    public var modelPath: String
    public var projectorPath: String
    public var imagePath: String
    public var hybridExecutable: String
    public var referencePath: String
    public var threads: Int
    public var outputTokens = 16
    public var rounds = 3
    /// Concurrent image requests over HTTP, against llama-server (empty: no serving measurement).
    public var widths = [1, 4]
    /// llama.cpp's llama-server, the serving reference (`--mmproj`).
    public var llamaServerPath: String?
    public var gnuTime = "/usr/bin/time"

    public init(modelPath: String, projectorPath: String, imagePath: String, hybridExecutable: String,
                referencePath: String, threads: Int) {
      self.modelPath = modelPath
      self.projectorPath = projectorPath
      self.imagePath = imagePath
      self.hybridExecutable = hybridExecutable
      self.referencePath = referencePath
      self.threads = threads
    }
  }

  public let settings: Settings
  private let progress: @Sendable (String) -> Void

  public init(settings: Settings, progress: @escaping @Sendable (String) -> Void = { _ in }) {
    self.settings = settings
    self.progress = progress
  }

  /// Writes a pair with SmolVLM-256M's sizes and random weights into `folder` unless it holds one
  /// (`scripts/make-timing-model`, run from the repository's root with the bootstrap's numpy).
  public static func makePairIfMissing(in folder: URL, progress: @Sendable (String) -> Void) async throws {
    guard !FileManager.default.fileExists(atPath: folder.appendingPathComponent("mmproj.gguf").path) else { return }
    progress("writing a pair with SmolVLM-256M's sizes (random weights) into \(folder.path)")
    let made = try await ChildProcess(executable: ".deps/litert-venv/bin/python", arguments: [
      "scripts/make-timing-model", "--vision", folder.path, "--shape", "smolvlm-256m",
    ]).run(output: .collected(limit: 1 << 20))
    guard made.status == 0 else { throw MeasuredProcessError(description: "make-timing-model failed: \(made.standardError.suffix(600))") }
  }

  static let prompt = "Describe."
  /// The control tokens llama-mtmd-cli writes out and an answer's text leaves out.
  static var controlTokens: Regex<(Substring, Substring?)> {
    /<row_\d+_col_\d+>|<fake_token_around_image>|<global-img>|<\|(im_start|im_end|endoftext)\|>/
  }

  struct Run {
    var wall: Double
    var peakMiB: Double
    var text: String
    /// Ours: the prompt's evaluation (encoding included), ms; theirs: the encodes alone, ms.
    var promptMilliseconds: Double
  }

  public func run() async throws -> BenchmarkReport {
    let work = FileManager.default.temporaryDirectory.appendingPathComponent("hybrid-bench-vision-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: work) }
    let gnuTime = await MeasuredProcess.locateGNUTime(settings.gnuTime, outputDirectory: work)
    var ours: [Run] = [], theirs: [Run] = []
    for round in 0..<settings.rounds {
      for side in round % 2 == 0 ? [true, false] : [false, true] {
        progress("round \(round + 1) of \(settings.rounds): \(side ? "hybrid generate" : "llama-mtmd-cli")")
        if side { ours.append(try await runOurs(work: work, gnuTime: gnuTime)) } else {
          theirs.append(try await runTheirs(work: work, gnuTime: gnuTime))
        }
      }
    }
    let name = URL(fileURLWithPath: settings.projectorPath).lastPathComponent
    var report = BenchmarkReport(title: "An image turn on device vs llama-mtmd-cli (\(name), \(settings.threads) threads, "
      + "\(settings.outputTokens) greedy tokens): \(settings.rounds) alternating rounds, medians; ratio: median of the per-round ratios")
    let ratios = zip(ours, theirs).map { $0.wall / $1.wall }
    report.rows.append(.init(metric: "whole run: load, encode, evaluate, answer (s; lower is faster)", ours: ours.map(\.wall).median,
                             reference: theirs.map(\.wall).median, target: .atMost(1.05), pairedRatio: ratios.median))
    report.rows.append(.init(metric: "peak memory (MiB)", ours: ours.map(\.peakMiB).median, reference: theirs.map(\.peakMiB).median,
                             target: .informational))
    report.rows.append(.init(metric: "prompt with the image, ms (ours: encode + evaluate; reference: encodes alone)",
                             ours: ours.map(\.promptMilliseconds).median, reference: theirs.map(\.promptMilliseconds).median,
                             target: .informational))
    if let llamaServerPath = settings.llamaServerPath, !settings.widths.isEmpty {
      try await serving(into: &report, llamaServerPath: llamaServerPath, work: work)
    }
    let same = zip(ours, theirs).allSatisfy { $0.text == $1.text }
    report.notes.append(same ? "Both answered with the same text in every round."
      : "The answers differ: ours \(ours.first?.text.debugDescription ?? ""), llama-mtmd-cli's \(theirs.first?.text.debugDescription ?? "")")
    return report
  }

  /// Streamed image requests over HTTP (OpenAI API, the image as a `data:` URL after the text), `width` at
  /// once, on `hybrid serve --mmproj` and `llama-server --mmproj` with as many slots: time to first token
  /// (it holds the whole encode) and each stream's tokens/s after it, in rounds alternating the order.
  private func serving(into report: inout BenchmarkReport, llamaServerPath: String, work: URL) async throws {
    let slots = settings.widths.max() ?? 1
    let image = try Data(contentsOf: URL(fileURLWithPath: settings.imagePath))
    let dataURL = "data:image/png;base64," + image.base64EncodedString()
    progress("starting hybrid serve and llama-server with the projector, \(slots) slots each")
    let ours = try await ServerProcess(executable: URL(fileURLWithPath: settings.hybridExecutable), arguments: [
      "--model", "bench=\(settings.modelPath)", "--mmproj", "bench=\(settings.projectorPath)",
      "--max-concurrent-requests", "\(slots)", "--context-size", "2048", "--threads", "\(settings.threads)",
      "--draft-max", "0", "--data", work.appendingPathComponent("serve").path, "--log-level", "error",
    ])
    let theirs: LlamaServerReference.Running
    do {
      theirs = try await LlamaServerReference(executable: llamaServerPath).start(
        model: settings.modelPath, threads: settings.threads, slots: slots, contextPerSlot: 2048,
        offload: ReferenceOffload(try SystemLanguageModel(modelPath: settings.modelPath).placement()),
        extraArguments: ["--mmproj", settings.projectorPath, "--no-cache-prompt"])
    } catch {
      _ = await ours.stop()
      throw error
    }
    let loads = [("hybrid serve", OpenAIStreamLoad(apiRoot: ours.baseURL.appendingPathComponent("v1beta/openai"), model: "bench",
                                                   outputTokens: settings.outputTokens, imageDataURL: dataURL)),
                 ("llama-server", OpenAIStreamLoad(apiRoot: theirs.apiRoot, model: "bench", outputTokens: settings.outputTokens,
                                                   imageDataURL: dataURL))]
    defer { Task { for (_, load) in loads { await load.shutdown() } } }
    var results: [Int: [String: [OpenAIStreamLoad.Result]]] = [:]
    do {
      for (_, load) in loads { _ = try await load.send(prompt: "Warm up.") }   // not measured
      for round in 0..<settings.rounds {
        for width in settings.widths {
          for (name, load) in round % 2 == 0 ? loads : loads.reversed() {
            progress("serving round \(round + 1) of \(settings.rounds): \(name), \(width) image request(s) at once")
            results[width, default: [:]][name, default: []].append(
              try await load.run(width: width, requestsPerStream: 1) { stream, _ in "Describe picture \(stream) of round \(round + 1)." })
          }
        }
      }
    } catch {
      _ = await ours.stop()
      await theirs.stop()
      throw error
    }
    _ = await ours.stop()
    await theirs.stop()
    for width in settings.widths {
      let mine = results[width]?["hybrid serve"] ?? [], other = results[width]?["llama-server"] ?? []
      let ttft = { (runs: [OpenAIStreamLoad.Result]) in runs.flatMap(\.timesToFirstToken).median / 1000 }
      // Tokens/s of a stream once it answers: a run's tokens per stream over its time after the first
      // token (gaps between text chunks would not do: a random model's tokens are often control
      // tokens or parts of a character, which stream no text).
      let rate = { (runs: [OpenAIStreamLoad.Result]) -> Double in
        runs.map { run in
          let answering = run.wall.seconds - run.timesToFirstToken.median / 1000
          return answering > 0 ? Double(run.tokens) / Double(width) / answering : 0
        }.median
      }
      report.rows.append(.init(metric: "served, \(width) image request(s) at once: time to first token p50 (s; lower is faster)",
                               ours: ttft(mine), reference: ttft(other), target: .atMost(1.0),
                               pairedRatio: zip(mine, other).map { ttft([$0]) / max(ttft([$1]), 1e-9) }.median))
      report.rows.append(.init(metric: "served, \(width) image request(s) at once: tokens/s per stream after the first",
                               ours: rate(mine), reference: rate(other), target: .atLeast(1.0),
                               pairedRatio: zip(mine, other).map { rate([$0]) / max(rate([$1]), 1e-9) }.median))
    }
    report.notes.append("Served: hybrid serve --mmproj --max-concurrent-requests \(slots) --context-size 2048 --draft-max 0; "
      + "llama-server --mmproj -np \(slots) -c \(slots * 2048) --no-cache-prompt; OpenAI API, streamed, greedy, "
      + "\(settings.outputTokens) tokens, a different text before the same image per stream and round (neither server can reuse an earlier encode).")
  }

  private func runOurs(work: URL, gnuTime: String?) async throws -> Run {
    let result = try await MeasuredProcess.run(settings.hybridExecutable, [
      "generate", "--model", settings.modelPath, "--mmproj", settings.projectorPath, "--attach", settings.imagePath,
      "--greedy", "--max-tokens", "\(settings.outputTokens)", "--threads", "\(settings.threads)", "--mode", "on-device",
      "--draft-max", "0", "--json", Self.prompt,
    ], outputDirectory: work, peakMemoryVia: gnuTime)
    guard result.succeeded,
          let object = try? JSONSerialization.jsonObject(with: result.standardOutput) as? [String: Any] else {
      throw MeasuredProcessError(description: "hybrid generate failed: \(result.standardErrorTail())")
    }
    let timings = object["timings"] as? [String: Any]
    return Run(wall: result.wallSeconds, peakMiB: result.peakResidentMiB, text: object["text"] as? String ?? "",
               promptMilliseconds: timings?["promptEvaluationMs"] as? Double ?? 0)
  }

  private func runTheirs(work: URL, gnuTime: String?) async throws -> Run {
    let arguments = [
      "-m", settings.modelPath, "--mmproj", settings.projectorPath, "--image", settings.imagePath,
      "-p", Self.prompt + "<__media__>", "-n", "\(settings.outputTokens)", "--temp", "0", "-t", "\(settings.threads)",
    ]
    // The tool never flushes llama.cpp's asynchronous log, which carries its answer, at exit; the
    // bootstrap's preload library beside it does (env execs the tool in place: same process).
    let flush = URL(fileURLWithPath: settings.referencePath).deletingLastPathComponent()
      .appendingPathComponent("libflush-llama-log.so").path
    let result = FileManager.default.fileExists(atPath: flush)
      ? try await MeasuredProcess.run("/usr/bin/env", ["LD_PRELOAD=\(flush)", settings.referencePath] + arguments,
                                      outputDirectory: work, peakMemoryVia: gnuTime)
      : try await MeasuredProcess.run(settings.referencePath, arguments, outputDirectory: work, peakMemoryVia: gnuTime)
    guard result.succeeded else { throw MeasuredProcessError(description: "llama-mtmd-cli failed: \(result.standardErrorTail())") }
    let log = String(decoding: result.standardError, as: UTF8.self)
    let encodes = log.matches(of: /encoding done in (\d+) ms/).compactMap { Double($0.1) }.reduce(0, +)
    let text = String(result.outputText.replacing(Self.controlTokens, with: "")).trimmingCharacters(in: .newlines)
    return Run(wall: result.wallSeconds, peakMiB: result.peakResidentMiB, text: text, promptMilliseconds: encodes)
  }
}
