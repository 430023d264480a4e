import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// What an `hf:` reference costs once the model is in Hugging Face's cache: `hybrid generate
/// --model hf:…` against the same command given the snapshot's file path, side by side in
/// alternating order, each to a loaded model and one greedy token. The cache lookup reads
/// `refs/main`, follows the snapshot's link and checks the blob's verified mark (a `stat` and an
/// extended attribute); the first use of a blob that another tool fetched hashes it once, shown
/// on a row of its own.
struct HubCacheHitBenchmark: Sendable {
  /// The `hybrid` executable.
  let hybridExecutable: String
  /// A real GGUF (it is loaded).
  let modelPath: String
  let rounds: Int
  let work: URL
  let progress: @Sendable (String) -> Void

  /// The most a cache hit may add to a model's load.
  static let excessTargetMilliseconds = 50.0

  func rows() async throws -> [BenchmarkReport.Row] {
    let hashed = try await MeasuredProcess.run("/usr/bin/sha256sum", [modelPath], outputDirectory: work)
    try ModelDeliveryBenchmark.require(hashed, "sha256sum")
    let sha256 = String(hashed.outputText.prefix(64))
    guard let size = (try? FileManager.default.attributesOfItem(atPath: modelPath))?[.size] as? NSNumber else {
      throw ModelDeliveryBenchmarkError.invalidSettings("no model file at \(modelPath)")
    }
    let storage = try await HubDownloadBenchmark.start(HubBenchmarkServer(path: modelPath, sha256: sha256, size: size.int64Value, storage: nil))
    defer { Task { await ModelDeliveryBenchmark.stop(storage.task) } }
    let hub = try await HubDownloadBenchmark.start(HubBenchmarkServer(path: modelPath, sha256: sha256, size: size.int64Value,
                                                                     storage: "http://127.0.0.1:\(storage.port)"))
    defer { Task { await ModelDeliveryBenchmark.stop(hub.task) } }
    let cache = work.appendingPathComponent("cache-hit")
    let environment = ["HF_ENDPOINT=http://127.0.0.1:\(hub.port)", "HF_HUB_CACHE=\(cache.path)", "HF_HUB_DISABLE_TELEMETRY=1"]
    let reference = "hf:\(HubBenchmarkServer.repository)"
    progress("cache hit: fetching \((modelPath as NSString).lastPathComponent) into a fresh cache as \(reference)")
    try ModelDeliveryBenchmark.require(
      try await MeasuredProcess.run("/usr/bin/env", environment + [hybridExecutable, "models", "pull", reference], outputDirectory: work),
      "hybrid models pull")
    let snapshotFile = cache.appendingPathComponent("models--\(HubBenchmarkServer.repository.replacingOccurrences(of: "/", with: "--"))")
      .appendingPathComponent("snapshots/\(HubBenchmarkServer.commit)/\(HubBenchmarkServer.fileName)").path
    let blob = cache.appendingPathComponent("models--\(HubBenchmarkServer.repository.replacingOccurrences(of: "/", with: "--"))")
      .appendingPathComponent("blobs/\(sha256)").path

    func load(_ model: String) async throws -> Double {
      let result = try await MeasuredProcess.run("/usr/bin/env", environment + [
        hybridExecutable, "generate", "--mode", "on-device", "--model", model, "--max-tokens", "1",
        "--temperature", "0", "Hi",
      ], outputDirectory: work)
      try ModelDeliveryBenchmark.require(result, "hybrid generate --model \(model)")
      return result.wallSeconds * 1000
    }

    var byReference: [Double] = [], byPath: [Double] = [], firstUse: [Double] = []
    _ = try await load(snapshotFile)   // page cache warm for both
    for round in 1...rounds {
      progress("cache hit round \(round)/\(rounds)")
      if round.isMultiple(of: 2) {
        byPath.append(try await load(snapshotFile))
        byReference.append(try await load(reference))
      } else {
        byReference.append(try await load(reference))
        byPath.append(try await load(snapshotFile))
      }
    }
    // As if huggingface_hub or llama.cpp had just fetched the blob: a new modification time voids
    // the verified mark, so the next use hashes it.
    for _ in 1...max(1, rounds / 2) {
      guard utimes(blob, nil) == 0 else { throw ModelDeliveryBenchmarkError.io("touching \(blob)", errno) }
      firstUse.append(try await load(reference))
    }
    let sizeText = ModelDeliveryBenchmark.sizeText(size.int64Value)
    return [
      .init(metric: "cache hit, \(sizeText) GGUF: `hybrid generate --model hf:…` vs `--model PATH`, to a loaded model and one token (ms)",
            ours: byReference.median, reference: byPath.median, target: .excessAtMost(Self.excessTargetMilliseconds, unit: "ms")),
      .init(metric: "first use of a blob another tool fetched (hashed once, then marked) vs `--model PATH` (ms)",
            ours: firstUse.median, reference: byPath.median, target: .informational),
    ]
  }
}
