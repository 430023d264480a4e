import Foundation
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
    let same = zip(ours, theirs).allSatisfy { $0.text == $1.text }
    report.notes.append(same ? "Both answered with the same text in every round."
      : "The answers differ: ours \(ours.first?.text.debugDescription ?? ""), llama-mtmd-cli's \(theirs.first?.text.debugDescription ?? "")")
    return report
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
    let result = try await MeasuredProcess.run(settings.referencePath, [
      "-m", settings.modelPath, "--mmproj", settings.projectorPath, "--image", settings.imagePath,
      "-p", Self.prompt + "<__media__>", "-n", "\(settings.outputTokens)", "--temp", "0", "-t", "\(settings.threads)",
    ], outputDirectory: work, peakMemoryVia: gnuTime)
    guard result.succeeded else { throw MeasuredProcessError(description: "llama-mtmd-cli failed: \(result.standardErrorTail())") }
    let log = String(decoding: result.standardError, as: UTF8.self)
    let encodes = log.matches(of: /encoding done in (\d+) ms/).compactMap { Double($0.1) }.reduce(0, +)
    let text = String(result.outputText.replacing(Self.controlTokens, with: "")).trimmingCharacters(in: .newlines)
    return Run(wall: result.wallSeconds, peakMiB: result.peakResidentMiB, text: text, promptMilliseconds: encodes)
  }
}
