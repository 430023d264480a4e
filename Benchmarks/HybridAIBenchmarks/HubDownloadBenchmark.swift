import Foundation
import HybridAIProcess
import HybridAIServing
#if canImport(Glibc)
import Glibc
#endif

/// A model download from a Hugging Face Hub on loopback, side by side with the official client and
/// curl in one run: `hybrid models pull hf:…` (a child process, into a fresh cache each round) vs
/// huggingface_hub's `hf_hub_download` and vs `curl -L` of the resolve URL, in rotating order.
///
/// Ours resolves the revision and lists the files through the Hub's API, follows the redirect to
/// the storage route, hashes the bytes as they arrive (SHA-256, checked against the LFS id) and
/// renames the blob into the cache; hf_hub_download asks `HEAD resolve` and downloads into the same
/// layout; curl only writes the bytes. Peak memory (`ru_maxrss` under GNU time) of ours and
/// hf_hub_download (a Python process) is reported beside it.
public struct HubDownloadBenchmark: Sendable {
  public struct Settings: Sendable {
    /// The `hybrid` executable whose `models pull` is measured.
    public var hybridExecutable: String
    /// A Python with huggingface_hub (the bootstrap's `.deps/venv/bin/python`); `nil` leaves it out.
    public var python: String?
    /// curl and GNU time: paths, or names looked up on `$PATH`. A missing tool leaves its part out.
    public var curl = "curl"
    public var gnuTime = "time"
    /// The model file's size, in MiB.
    public var sizeMiB = 1024
    /// Rounds; each downloads once with every tool.
    public var rounds = 3
    /// Seeds the file's pseudo-random bytes.
    public var seed: UInt64 = 11
    /// A real GGUF for the cache-hit rows (``HubCacheHitBenchmark``); `nil` leaves them out.
    public var modelPath: String?
    /// Where the temporary directory (the file, the caches) goes.
    public var workDirectory = FileManager.default.temporaryDirectory

    public init(hybridExecutable: String) { self.hybridExecutable = hybridExecutable }
  }

  public let settings: Settings
  private let progress: @Sendable (String) -> Void

  /// The least throughput, relative to huggingface_hub.
  static let throughputTarget = 1.0
  /// The most a download may cost in memory.
  static let memoryTargetMiB = 64.0

  public init(settings: Settings, progress: @escaping @Sendable (String) -> Void = { _ in }) {
    self.settings = settings
    self.progress = progress
  }

  private enum Tool: String, CaseIterable {
    case ours = "hybrid models pull"
    case huggingFaceHub = "hf_hub_download"
    case curl = "curl -L"
  }

  public func run() async throws -> BenchmarkReport {
    guard settings.sizeMiB > 0, settings.rounds > 0 else {
      throw ModelDeliveryBenchmarkError.invalidSettings("size and rounds must be positive")
    }
    guard FileManager.default.isExecutableFile(atPath: settings.hybridExecutable) else {
      throw ModelDeliveryBenchmarkError.missingExecutable(settings.hybridExecutable)
    }
    let size = Int64(settings.sizeMiB) << 20
    let needed = 2 * size + (64 << 20)
    let available = ModelDeliveryBenchmark.availableBytes(at: settings.workDirectory) ?? .max
    guard available >= needed else {
      throw ModelDeliveryBenchmarkError.notEnoughDiskSpace(needed: needed, available: available, path: settings.workDirectory.path)
    }
    let work = settings.workDirectory.appendingPathComponent("hybrid-bench-hub-\(getpid())-\(UInt32.random(in: .min ... .max))")
    try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: work) }
    let source = work.appendingPathComponent("model.gguf")
    progress("writing \(ModelDeliveryBenchmark.sizeText(size)) of pseudo-random bytes (seed \(settings.seed))")
    try ModelDeliveryBenchmark.writePseudoRandomFile(at: source.path, bytes: size, seed: settings.seed)
    let hashed = try await MeasuredProcess.run("/usr/bin/sha256sum", [source.path], outputDirectory: work)
    try ModelDeliveryBenchmark.require(hashed, "sha256sum")
    let sha256 = String(hashed.outputText.prefix(64))

    // The storage host, then the Hub that redirects to it (two origins, as on huggingface.co).
    let storageServer = try await Self.start(HubBenchmarkServer(path: source.path, sha256: sha256, size: size, storage: nil))
    defer { Task { await ModelDeliveryBenchmark.stop(storageServer.task) } }
    let hubServer = try await Self.start(HubBenchmarkServer(path: source.path, sha256: sha256, size: size,
                                                            storage: "http://127.0.0.1:\(storageServer.port)"))
    defer { Task { await ModelDeliveryBenchmark.stop(hubServer.task) } }
    let port = hubServer.port
    let endpoint = "http://127.0.0.1:\(port)"
    progress("Hub stand-in listening on \(endpoint)")
    let curl = ChildProcess.locate(settings.curl)
    let gnuTime = await MeasuredProcess.locateGNUTime(settings.gnuTime, outputDirectory: work)
    var tools: [Tool] = [.ours]
    if settings.python != nil { tools.append(.huggingFaceHub) }
    if curl != nil { tools.append(.curl) }

    var rates: [Tool: [Double]] = [:], peaks: [Tool: [Double]] = [:]
    for round in 1...settings.rounds {
      let shift = (round - 1) % tools.count
      let order: [Tool] = Array(tools[shift...]) + Array(tools[..<shift])
      for tool in order {
        sync()
        let cache = work.appendingPathComponent("cache-\(tool)")
        let environment = ["HF_ENDPOINT=\(endpoint)", "HF_HUB_CACHE=\(cache.path)", "HF_HUB_DISABLE_TELEMETRY=1",
                           "HF_HUB_DISABLE_XET=1"]
        let (executable, arguments): (String, [String]) = switch tool {
        case .ours:
          ("/usr/bin/env", environment + [settings.hybridExecutable, "models", "pull", "hf:\(HubBenchmarkServer.repository)"])
        case .huggingFaceHub:
          ("/usr/bin/env", environment + [settings.python ?? "python3", "-c",
            "from huggingface_hub import hf_hub_download; hf_hub_download('\(HubBenchmarkServer.repository)', '\(HubBenchmarkServer.fileName)')"])
        case .curl:
          (curl ?? "curl", ["-s", "-f", "-L", "-o", work.appendingPathComponent("curl.bin").path,
                            "\(endpoint)/\(HubBenchmarkServer.repository)/resolve/main/\(HubBenchmarkServer.fileName)"])
        }
        progress("round \(round)/\(settings.rounds): \(tool.rawValue)")
        let measuresMemory = tool != Tool.curl
        let result = try await MeasuredProcess.run(executable, arguments, outputDirectory: work,
                                                   peakMemoryVia: measuresMemory ? gnuTime : nil)
        try ModelDeliveryBenchmark.require(result, tool.rawValue)
        rates[tool, default: []].append(ModelDeliveryBenchmark.megabytesPerSecond(size, result.wallSeconds))
        if gnuTime != nil, measuresMemory { peaks[tool, default: []].append(result.peakResidentMiB) }
        try? FileManager.default.removeItem(at: cache)
        try? FileManager.default.removeItem(at: work.appendingPathComponent("curl.bin"))
      }
    }

    let sizeText = ModelDeliveryBenchmark.sizeText(size)
    var report = BenchmarkReport(title: "Hugging Face Hub download — \(sizeText) over loopback, \(settings.rounds) rotating rounds")
    let ours = rates[.ours] ?? []
    func pairedRatio(_ other: [Double]) -> Double? {
      other.isEmpty ? nil : zip(ours, other).map { $1 > 0 ? $0 / $1 : 0 }.median
    }
    if let hub = rates[.huggingFaceHub] {
      report.rows.append(.init(metric: "download \(sizeText), `hybrid models pull` vs huggingface_hub's hf_hub_download (MB/s)",
                               ours: ours.median, reference: hub.median, target: .atLeast(Self.throughputTarget),
                               pairedRatio: pairedRatio(hub)))
    }
    if let curlRates = rates[.curl] {
      report.rows.append(.init(metric: "download \(sizeText), `hybrid models pull` vs curl -L (MB/s)", ours: ours.median,
                               reference: curlRates.median, target: .informational, pairedRatio: pairedRatio(curlRates)))
    }
    if let ourPeaks = peaks[.ours] {
      report.rows.append(.init(metric: "peak RSS while downloading, `hybrid models pull` vs hf_hub_download (MiB)",
                               ours: ourPeaks.max() ?? 0, reference: peaks[.huggingFaceHub]?.max(),
                               target: .below(Self.memoryTargetMiB, unit: "MiB")))
    }
    if let modelPath = settings.modelPath {
      report.rows += try await HubCacheHitBenchmark(hybridExecutable: settings.hybridExecutable, modelPath: modelPath,
                                                    rounds: max(5, settings.rounds), work: work, progress: progress).rows()
    }
    report.notes.append("per-round MB/s: " + tools.map { "\($0.rawValue) " + (rates[$0] ?? []).slashList() }.joined(separator: "; "))
    report.notes.append("ours hashes every byte (SHA-256 against the LFS id) and renames the blob into the cache; "
      + "curl only writes the bytes; each round starts from an empty cache")
    return report
  }

  /// Starts a server with `component` on a free loopback port.
  static func start(_ component: HubBenchmarkServer) async throws -> (port: Int, task: Task<Void, any Error>) {
    let server = HybridServer(configuration: ServerConfiguration(host: "127.0.0.1", port: 0), components: [component])
    let (ports, portContinuation) = AsyncStream.makeStream(of: Int.self)
    let task = Task {
      defer { portContinuation.finish() }
      try await server.run { portContinuation.yield($0) }
    }
    var portIterator = ports.makeAsyncIterator()
    guard let port = await portIterator.next() else {
      throw ModelDeliveryBenchmarkError.serverDidNotStart(String(describing: await task.result))
    }
    return (port, task)
  }
}
