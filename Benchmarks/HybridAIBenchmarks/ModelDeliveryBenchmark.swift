import AsyncHTTPClient
import Foundation
import HybridAIProcess
import HybridAI
import HybridAIRegistry
import HybridAIServing
import ModelDelivery
import NIOCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Custom-model delivery on loopback, side by side with standard tools in one run
/// (docs/model-delivery.md, docs/benchmarks.md):
///
/// 1. **Download throughput** of a large file (1 GiB by default): `hybrid models get NAME --type latest`
///    as a child process into a fresh directory vs `curl -s -o FILE <signed blob URL>`, in
///    interleaved rounds (target ≥ 0.9× curl). Ours also asks for the model info, verifies the
///    SHA-256 and installs atomically (fsync, rename); curl only writes the bytes. The upload
///    (``ModelDelivery/ModelRegistryAdmin``, in process) is timed too, with `curl -T` beside it.
/// 2. **Peak memory** (`ru_maxrss`) of the downloading `hybrid models get` (target < 64 MiB), with
///    curl's beside it, and the baseline of a trivial invocation of each (`hybrid models get --help`,
///    `curl --version`), so that the download's own cost shows. The programs run under GNU time,
///    which reports their own peak (see ``MeasuredProcess`` for why `wait4` from here cannot).
/// 3. **Requests/s of `GET /v1/models/{name}:download`** under `wrk`, answering `200` (JSON with
///    a freshly signed URL) and `304` (`If-None-Match` with the current SHA-256), with `GET /healthz`
///    of the same server as the reference: the same HTTP stack and router, no registry work.
///
/// The registry runs in this process (a temporary data directory, a free loopback port, a random
/// admin token); the file is pseudo-random bytes from `seed`, written in chunks. Everything is
/// created under one temporary directory in ``Settings/workDirectory`` and removed at the end;
/// about three times the file's size must be free there.
public struct ModelDeliveryBenchmark: Sendable {
  public struct Settings: Sendable {
    /// The `hybrid` executable whose `models get` is measured (`hybrid bench delivery` passes itself).
    public var hybridExecutable: String
    /// curl and wrk: paths, or names looked up on `$PATH`. A missing tool leaves its comparison out.
    public var curl = "curl"
    public var wrk = "wrk"
    /// GNU time, to measure the children's own peak memory (a path, or a name on `$PATH`).
    public var gnuTime = "time"
    /// The model file's size, in MiB.
    public var sizeMiB = 1024
    /// Download rounds; each runs ours and curl once, alternating which goes first.
    public var rounds = 7
    /// Seconds, threads and connections of each wrk run.
    public var wrkSeconds = 5
    public var wrkThreads = 2
    public var wrkConnections = 32
    /// Seeds the file's pseudo-random bytes.
    public var seed: UInt64 = 7
    /// Where the temporary directory (file, registry data, downloads) goes.
    public var workDirectory = FileManager.default.temporaryDirectory

    public init(hybridExecutable: String) {
      self.hybridExecutable = hybridExecutable
    }
  }

  public let settings: Settings
  private let progress: @Sendable (String) -> Void

  /// The most a download may cost in memory: the downloader streams to disk.
  static let memoryTargetMiB = 64.0
  /// The least download throughput, relative to curl.
  static let throughputTarget = 0.9
  static let modelName = "bench-delivery"
  static let installationID = "bench"

  public init(settings: Settings, progress: @escaping @Sendable (String) -> Void = { _ in }) {
    self.settings = settings
    self.progress = progress
  }

  /// Runs the measurements and returns the report; throws when a step fails, and before starting
  /// when the disk is too small.
  public func run() async throws -> BenchmarkReport {
    guard settings.sizeMiB > 0, settings.rounds > 0, settings.wrkSeconds > 0 else {
      throw ModelDeliveryBenchmarkError.invalidSettings("size, rounds and wrk seconds must be positive")
    }
    guard FileManager.default.isExecutableFile(atPath: settings.hybridExecutable) else {
      throw ModelDeliveryBenchmarkError.missingExecutable(settings.hybridExecutable)
    }
    let size = Int64(settings.sizeMiB) << 20
    // The registry below stands for `hybrid serve`, which does this at startup.
    ServingProcess.keepStreamingBuffersAllocated()

    try FileManager.default.createDirectory(at: settings.workDirectory, withIntermediateDirectories: true)
    // The source file, the registry's blob (an upload is staged next to it, then renamed) and one
    // downloaded copy at a time; the source is deleted once uploaded.
    let needed = 3 * size + (64 << 20)
    let available = Self.availableBytes(at: settings.workDirectory) ?? .max
    guard available >= needed else {
      throw ModelDeliveryBenchmarkError.notEnoughDiskSpace(needed: needed, available: available,
                                                           path: settings.workDirectory.path)
    }
    let work = settings.workDirectory.appendingPathComponent(
      "hybrid-bench-delivery-\(getpid())-\(UInt32.random(in: .min ... .max))", isDirectory: true)
    try FileManager.default.createDirectory(at: work, withIntermediateDirectories: false)
    defer { try? FileManager.default.removeItem(at: work) }
    let tools = Tools(hybrid: settings.hybridExecutable, curl: ChildProcess.locate(settings.curl),
                      wrk: ChildProcess.locate(settings.wrk),
                      gnuTime: await MeasuredProcess.locateGNUTime(settings.gnuTime, outputDirectory: work))

    let source = work.appendingPathComponent("model.bin")
    progress("writing \(Self.sizeText(size)) of pseudo-random bytes (seed \(settings.seed)) to \(source.path)")
    try Self.writePseudoRandomFile(at: source.path, bytes: size, seed: settings.seed)

    let token = UUID().uuidString
    let registry = try ModelRegistry(configuration: RegistryConfiguration(
      dataDirectory: work.appendingPathComponent("registry", isDirectory: true), adminToken: token,
      maxUploadBytes: max(8 << 30, 2 * size)))
    // As `hybrid serve` runs it: with its metrics (each chunk sent is counted).
    let metrics = ServerMetrics()
    let server = HybridServer(configuration: ServerConfiguration(host: "127.0.0.1", port: 0),
                              components: [RegistryAPI(registry: registry, metrics: metrics)], metrics: metrics)
    let (ports, portContinuation) = AsyncStream.makeStream(of: Int.self)
    let serverTask = Task {
      defer { portContinuation.finish() }
      try await server.run { portContinuation.yield($0) }
    }
    var portIterator = ports.makeAsyncIterator()
    guard let port = await portIterator.next() else {
      throw ModelDeliveryBenchmarkError.serverDidNotStart(String(describing: await serverTask.result))
    }
    let base = "http://127.0.0.1:\(port)"
    progress("registry listening on \(base) (data in \(work.path)/registry)")
    do {
      let report = try await measure(base: base, token: token, source: source, size: size, work: work, tools: tools)
      await Self.stop(serverTask)
      return report
    } catch {
      await Self.stop(serverTask)
      throw error
    }
  }

  private struct Tools {
    var hybrid: String
    var curl: String?
    var wrk: String?
    var gnuTime: String?
  }

  // MARK: - Measurements

  private func measure(base: String, token: String, source: URL, size: Int64, work: URL,
                       tools: Tools) async throws -> BenchmarkReport {
    var report = BenchmarkReport(
      title: "Model delivery — \(Self.sizeText(size)) over loopback, "
        + (settings.rounds == 1 ? "1 round; " : "\(settings.rounds) interleaved rounds; ")
        + "model info under wrk (\(settings.wrkSeconds) s, \(settings.wrkThreads) threads, \(settings.wrkConnections) connections)")
    let name = Self.modelName
    let admin = ModelRegistryAdmin(server: URL(string: base)!, token: token)
    _ = try await admin.createModel(name: name, description: "hybrid bench delivery", tags: ["bench"])

    // Upload: ours (in process), then curl's streamed POST of the same file (a second version of
    // the same blob, deleted again).
    sync()
    progress("uploading with ModelRegistryAdmin")
    let clock = ContinuousClock()
    let uploadStarted = clock.now
    let version = try await admin.uploadVersion(name: name, fileAt: source)
    let uploadSeconds = (clock.now - uploadStarted).seconds
    guard version.sizeBytes == size else {
      throw ModelDeliveryBenchmarkError.unexpectedAnswer("the registry stored \(version.sizeBytes) bytes of \(size)")
    }
    var curlUpload: MeasuredProcessResult?
    if let curl = tools.curl {
      sync()
      progress("uploading the same file with curl -T (reference)")
      let result = try await MeasuredProcess.run(curl, [
        "-s", "-f", "-o", "/dev/null", "-X", "POST", "-T", source.path,
        "-H", "Authorization: Bearer \(token)", "-H", "Content-Type: application/octet-stream", "-H", "Expect:",
        "\(base)/v1/admin/models/\(name)/versions",
      ], outputDirectory: work)
      try Self.require(result, "curl upload")
      curlUpload = result
      for other in try await admin.model(named: name).versions where other.version != version.version {
        try await admin.deleteVersion(name: name, version: other.version)
      }
    }
    _ = try await admin.publish(name: name, version: version.version)
    try FileManager.default.removeItem(at: source)   // the registry has its copy
    sync()

    // Downloads, interleaved.
    var ours: [Double] = [], theirs: [Double] = [], theirsSynced: [Double] = []
    var ourPeaks: [Double] = [], curlPeaks: [Double] = []
    var ourCPU: [(user: Double, system: Double)] = [], curlCPU: [(user: Double, system: Double)] = []
    for round in 1...settings.rounds {
      let info = try await Self.modelInfo(base: base, name: name)
      guard info.sha256 == version.sha256, info.sizeBytes == size else {
        throw ModelDeliveryBenchmarkError.unexpectedAnswer("model info names \(info.sha256) (\(info.sizeBytes) bytes)")
      }
      let oursFirst = round % 2 == 1
      for measuringOurs in oursFirst ? [true, false] : [false, true] {
        sync()   // no write-back of the previous copy during this one
        if measuringOurs {
          progress("round \(round)/\(settings.rounds): hybrid models get")
          let directory = work.appendingPathComponent("ours-\(round)", isDirectory: true)
          let result = try await MeasuredProcess.run(tools.hybrid, [
            "models", "get", name, "--server", base, "--dir", directory.path, "--type", "latest",
          ], outputDirectory: work, peakMemoryVia: tools.gnuTime)
          try Self.require(result, "hybrid models get")
          let path = result.outputText.trimmingCharacters(in: .whitespacesAndNewlines)
          try Self.checkDownloaded(path, size: size, within: directory.path)
          ours.append(Self.megabytesPerSecond(size, result.wallSeconds))
          ourPeaks.append(result.peakResidentMiB)
          ourCPU.append((result.userSeconds, result.systemSeconds))
          try FileManager.default.removeItem(at: directory)
        } else if let curl = tools.curl {
          progress("round \(round)/\(settings.rounds): curl")
          let file = work.appendingPathComponent("curl-\(round).bin")
          let result = try await MeasuredProcess.run(curl, ["-s", "-f", "-o", file.path, info.downloadUri],
                                                  outputDirectory: work, peakMemoryVia: tools.gnuTime)
          try Self.require(result, "curl download")
          try Self.checkDownloaded(file.path, size: size, within: work.path)
          let syncSeconds = try Self.fsyncSeconds(file.path)
          theirs.append(Self.megabytesPerSecond(size, result.wallSeconds))
          theirsSynced.append(Self.megabytesPerSecond(size, result.wallSeconds + syncSeconds))
          curlPeaks.append(result.peakResidentMiB)
          curlCPU.append((result.userSeconds, result.systemSeconds))
          try FileManager.default.removeItem(at: file)
        }
      }
    }

    // Baselines: trivial invocations of each program.
    progress("baseline memory: hybrid models get --help, curl --version")
    var ourBaseline: [Double] = [], curlBaseline: [Double] = [], ourStartup: [Double] = []
    for _ in 1...settings.rounds {
      let help = try await MeasuredProcess.run(tools.hybrid, ["models", "get", "--help"], outputDirectory: work,
                                            peakMemoryVia: tools.gnuTime)
      try Self.require(help, "hybrid models get --help")
      ourBaseline.append(help.peakResidentMiB)
      ourStartup.append(help.wallSeconds * 1000)
      if let curl = tools.curl {
        let curlVersion = try await MeasuredProcess.run(curl, ["--version"], outputDirectory: work,
                                                     peakMemoryVia: tools.gnuTime)
        try Self.require(curlVersion, "curl --version")
        curlBaseline.append(curlVersion.peakResidentMiB)
      }
    }

    let sizeText = Self.sizeText(size)
    // Each round runs both downloads back to back: the ratio judged is the median of the rounds'
    // ratios, which cancels the machine's speed shifts between rounds (curl alone swings ±25% here).
    let roundRatios = zip(ours, theirs).map { $0 / $1 }
    report.rows.append(.init(metric: "download \(sizeText), `hybrid models get` vs curl (MB/s)", ours: ours.median,
                             reference: theirs.isEmpty ? nil : theirs.median, target: .atLeast(Self.throughputTarget),
                             pairedRatio: roundRatios.isEmpty ? nil : roundRatios.median))
    if !theirsSynced.isEmpty {
      let syncedRatios = zip(ours, theirsSynced).map { $0 / $1 }
      report.rows.append(.init(metric: "download \(sizeText), vs curl + fsync (MB/s)", ours: ours.median,
                               reference: theirsSynced.median, target: .informational, pairedRatio: syncedRatios.median))
    }
    if !roundRatios.isEmpty {
      report.notes.append("download ratios are the median of the rounds' ratios (ours ÷ curl in the same round): "
        + roundRatios.map { String(format: "%.2f", $0) }.joined(separator: "/")
        + String(format: "; the ratio of the medians is %.2f×", ours.median / theirs.median))
    }
    report.rows.append(.init(metric: "upload \(sizeText), ModelRegistryAdmin vs curl -T (MB/s)",
                             ours: Self.megabytesPerSecond(size, uploadSeconds),
                             reference: curlUpload.map { Self.megabytesPerSecond(size, $0.wallSeconds) },
                             target: .informational))
    report.rows.append(.init(metric: "peak RSS while downloading, `hybrid models get` vs curl (MiB)",
                             ours: ourPeaks.max() ?? 0, reference: curlPeaks.max(),
                             target: tools.gnuTime == nil ? .informational : .below(Self.memoryTargetMiB, unit: "MiB")))
    report.rows.append(.init(metric: "baseline peak RSS, `hybrid models get --help` vs `curl --version` (MiB)",
                             ours: ourBaseline.median, reference: curlBaseline.isEmpty ? nil : curlBaseline.median,
                             target: .informational))
    report.rows.append(.init(metric: "download's own memory, peak − baseline (MiB)",
                             ours: (ourPeaks.max() ?? 0) - ourBaseline.median,
                             reference: curlPeaks.max().map { $0 - curlBaseline.median }, target: .informational))

    report.notes.append("per-round download MB/s: ours " + ours.slashList(decimals: 0) + ", curl " + theirs.slashList(decimals: 0)
      + ", curl + fsync " + theirsSynced.slashList(decimals: 0) + "; peak RSS (MiB): ours " + ourPeaks.slashList(decimals: 1)
      + ", curl " + curlPeaks.slashList(decimals: 1))
    func cpu(_ times: [(user: Double, system: Double)]) -> String {
      times.isEmpty ? "—" : String(format: "%.2f user + %.2f sys", times.map(\.user).median, times.map(\.system).median)
    }
    report.notes.append("CPU seconds per download (medians): ours \(cpu(ourCPU)), curl \(cpu(curlCPU)); "
      + "the server (this process) serves both the same way")
    report.notes.append("MB/s = 10⁶ bytes/s over each child's wall time, spawn to exit. Ours includes starting `hybrid` "
      + "(\(String(format: "%.0f", ourStartup.median)) ms for `models get --help`), the model-info request, SHA-256 "
      + "verification of every byte and an atomic install (fsync, rename); curl only writes the bytes to the page cache, "
      + "hence the curl + fsync row (fsync of curl's file timed in this process)")
    report.notes.append("rounds alternate which side goes first; `sync` before each download; the blob is served from "
      + "the page cache; each `hybrid models get` gets a fresh --dir, copies are deleted between downloads")
    report.notes.append("upload: ModelRegistryAdmin runs in this process, beside the server; curl -T streams a POST "
      + "of the same file (upload \(String(format: "%.2f", uploadSeconds)) s vs "
      + (curlUpload.map { String(format: "%.2f", $0.wallSeconds) + " s" } ?? "—") + ")")
    if let gnuTime = tools.gnuTime {
      report.notes.append("peak RSS: `ru_maxrss` of each program as GNU time (\(gnuTime) -f %M) reports it, max over rounds; "
        + "baselines are medians")
    } else {
      report.notes.append("**GNU time not found (\(settings.gnuTime)): the peak RSS rows are `wait4`'s `ru_maxrss` of children "
        + "of this process, which includes this process's own peak, so they mean nothing (install `time`)**")
    }
    if tools.curl == nil {
      report.notes.append("curl not found (\(settings.curl)): no download reference")
    }

    if let wrk = tools.wrk {
      try await measureModelInfo(base: base, name: name, sha256: version.sha256, wrk: wrk, work: work, into: &report)
    } else {
      report.notes.append("wrk not found (\(settings.wrk)): run `scripts/bootstrap --bench` for the requests/s rows")
    }
    return report
  }

  /// wrk against the model-info endpoint (200 and 304) and a trivial endpoint of the same server.
  private func measureModelInfo(base: String, name: String, sha256: String, wrk: String, work: URL,
                                into report: inout BenchmarkReport) async throws {
    let infoURL = "\(base)/v1/models/\(name):download"
    let referenceURL = "\(base)/healthz"
    let eTag = "\"\(sha256)\""
    // The answers wrk will get, checked once (wrk counts a 3xx as success).
    for (url, headers, expected) in [(infoURL, [(String, String)](), 200), (infoURL, [("If-None-Match", eTag)], 304),
                                     (referenceURL, [], 200)] {
      let status = try await Self.status(of: url, headers: headers)
      guard status == expected else {
        throw ModelDeliveryBenchmarkError.unexpectedAnswer("GET \(url) answered \(status), expected \(expected)")
      }
    }
    let common = ["-t\(settings.wrkThreads)", "-c\(settings.wrkConnections)", "-d\(settings.wrkSeconds)s", "--latency",
                  "-H", "X-HybridAI-Installation-Id: \(Self.installationID)"]
    progress("wrk: GET /healthz (reference)")
    let reference = try await runWrk(wrk, common + [referenceURL], work: work)
    progress("wrk: GET /v1/models/\(name):download → 200")
    let fresh = try await runWrk(wrk, common + [infoURL], work: work)
    progress("wrk: GET /v1/models/\(name):download with If-None-Match → 304")
    let notModified = try await runWrk(wrk, common + ["-H", "If-None-Match: \(eTag)", infoURL], work: work)

    report.rows.append(.init(metric: "model info `:download` → 200, vs `GET /healthz` (requests/s)",
                             ours: fresh.requestsPerSecond, reference: reference.requestsPerSecond, target: .informational))
    report.rows.append(.init(metric: "model info `:download` → 304, vs `GET /healthz` (requests/s)",
                             ours: notModified.requestsPerSecond, reference: reference.requestsPerSecond,
                             target: .informational))
    func latency(_ output: WrkOutput) -> String {
      String(format: "avg %.2f ms, p50 %.2f ms, p99 %.2f ms", output.averageLatencyMilliseconds,
             output.medianLatencyMilliseconds ?? .nan, output.p99LatencyMilliseconds ?? .nan)
    }
    report.notes.append("wrk latency: 200 \(latency(fresh)); 304 \(latency(notModified)); `GET /healthz` \(latency(reference))")
    report.notes.append("`wrk -t\(settings.wrkThreads) -c\(settings.wrkConnections) -d\(settings.wrkSeconds)s --latency "
      + "-H 'X-HybridAI-Installation-Id: \(Self.installationID)' URL` (+ `-H 'If-None-Match: \"<sha256>\"'` for 304). "
      + "Reference: `GET /healthz` of the same server (its operations endpoint: the same HTTP stack, router and "
      + "metrics middleware, a 3-byte body, no registry work; until 2026-11-27 the reference was `GET /v1/models`, an empty "
      + "Gemini model list, which a registry-only server does not have). 200 reads the model from SQLite, picks the version and signs a URL; "
      + "304 does the same but sends no body. wrk and the server share this machine's cores")
    let failures = [("200", fresh), ("304", notModified), ("reference", reference)]
      .filter { $0.1.non2xx3xxResponses > 0 || $0.1.socketErrors > 0 }
    for (label, output) in failures {
      report.notes.append("**wrk \(label): \(output.non2xx3xxResponses) non-2xx/3xx answers, \(output.socketErrors) socket errors "
        + "of \(output.requests) requests**")
    }
  }

  private func runWrk(_ wrk: String, _ arguments: [String], work: URL) async throws -> WrkOutput {
    let result = try await MeasuredProcess.run(wrk, arguments, outputDirectory: work)
    try Self.require(result, "wrk")
    guard let output = WrkOutput(parsing: result.outputText) else {
      throw ModelDeliveryBenchmarkError.unexpectedAnswer("cannot read wrk's report: \(result.outputText.suffix(600))")
    }
    return output
  }

  // MARK: - Helpers

  /// The answer of `GET /v1/models/{name}:download` that matters here.
  private struct ModelInfoAnswer: Decodable {
    var sizeBytes: Int64
    var sha256: String
    var downloadUri: String
  }

  private static func modelInfo(base: String, name: String) async throws -> ModelInfoAnswer {
    var request = HTTPClientRequest(url: "\(base)/v1/models/\(name):download")
    request.headers.add(name: "X-HybridAI-Installation-Id", value: installationID)
    let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
    let body = try await response.body.collect(upTo: 1 << 20)
    guard response.status == .ok else {
      throw ModelDeliveryBenchmarkError.unexpectedAnswer("model info: \(response.status.code) \(String(buffer: body))")
    }
    return try JSONDecoder().decode(ModelInfoAnswer.self, from: Data(body.readableBytesView))
  }

  private static func status(of url: String, headers: [(String, String)]) async throws -> Int {
    var request = HTTPClientRequest(url: url)
    request.headers.add(name: "X-HybridAI-Installation-Id", value: installationID)
    for (name, value) in headers { request.headers.add(name: name, value: value) }
    let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
    _ = try await response.body.collect(upTo: 1 << 20)
    return Int(response.status.code)
  }

  static func require(_ result: MeasuredProcessResult, _ what: String) throws {
    guard result.succeeded else {
      throw ModelDeliveryBenchmarkError.commandFailed(
        "\(what): exit status \(result.terminationStatus) (\(result.commandLine)): \(result.standardErrorTail())")
    }
  }

  /// Checks that `path` is a regular file of `size` bytes under `directory`.
  private static func checkDownloaded(_ path: String, size: Int64, within directory: String) throws {
    let attributes = try? FileManager.default.attributesOfItem(atPath: path)
    let actual = (attributes?[.size] as? NSNumber)?.int64Value
    guard path.hasPrefix(directory + "/"), actual == size else {
      throw ModelDeliveryBenchmarkError.unexpectedAnswer(
        "the download \(path) has \(actual.map(String.init) ?? "no") bytes, expected \(size) under \(directory)")
    }
  }

  /// Seconds an `fsync` of the file at `path` takes.
  private static func fsyncSeconds(_ path: String) throws -> Double {
    let fd = open(path, O_RDONLY)
    guard fd >= 0 else { throw ModelDeliveryBenchmarkError.io("open \(path)", errno) }
    defer { close(fd) }
    let clock = ContinuousClock()
    let started = clock.now
    guard fsync(fd) == 0 else { throw ModelDeliveryBenchmarkError.io("fsync \(path)", errno) }
    return (clock.now - started).seconds
  }

  /// Writes `bytes` pseudo-random bytes (SplitMix64 from `seed`) to `path`, 4 MiB at a time.
  static func writePseudoRandomFile(at path: String, bytes: Int64, seed: UInt64) throws {
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
    guard fd >= 0 else { throw ModelDeliveryBenchmarkError.io("create \(path)", errno) }
    defer { close(fd) }
    var words = [UInt64](repeating: 0, count: 1 << 19)
    var state = seed
    var remaining = bytes
    while remaining > 0 {
      words.withUnsafeMutableBufferPointer { buffer in
        for index in buffer.indices {
          state &+= 0x9E37_79B9_7F4A_7C15
          var mixed = state
          mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
          mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
          buffer[index] = mixed ^ (mixed >> 31)
        }
      }
      let count = Int(min(Int64(words.count * 8), remaining))
      try words.withUnsafeBytes { chunk in
        var offset = 0
        while offset < count {
          let written = write(fd, chunk.baseAddress! + offset, count - offset)
          if written < 0, errno == EINTR { continue }
          guard written > 0 else { throw ModelDeliveryBenchmarkError.io("write \(path)", errno) }
          offset += written
        }
      }
      remaining -= Int64(count)
    }
  }

  /// Free bytes for an unprivileged user on the file system holding `url`.
  static func availableBytes(at url: URL) -> Int64? {
    var stats = statvfs()
    guard statvfs(url.path, &stats) == 0 else { return nil }
    return Int64(stats.f_bavail) * Int64(stats.f_frsize)
  }

  static func megabytesPerSecond(_ bytes: Int64, _ seconds: Double) -> Double {
    seconds > 0 ? Double(bytes) / 1e6 / seconds : 0
  }

  /// `1 GiB`, `64 MiB`.
  static func sizeText(_ bytes: Int64) -> String {
    bytes >= 1 << 30 && bytes % (1 << 30) == 0 ? "\(bytes >> 30) GiB" : "\(bytes >> 20) MiB"
  }

  /// Stops the server (a graceful shutdown), waiting at most five seconds for it.
  static func stop(_ server: Task<Void, any Error>) async {
    server.cancel()
    await withTaskGroup(of: Void.self) { group in
      group.addTask { _ = await server.result }
      group.addTask { try? await Task.sleep(for: .seconds(5)) }
      await group.next()
      group.cancelAll()
    }
  }
}

/// Why ``ModelDeliveryBenchmark`` could not run or finish.
public enum ModelDeliveryBenchmarkError: Error, CustomStringConvertible {
  case invalidSettings(String)
  case missingExecutable(String)
  case notEnoughDiskSpace(needed: Int64, available: Int64, path: String)
  case serverDidNotStart(String)
  case commandFailed(String)
  case unexpectedAnswer(String)
  case io(String, Int32)

  public var description: String {
    switch self {
    case .invalidSettings(let why): "invalid settings: \(why)"
    case .missingExecutable(let path): "\(path) is not an executable"
    case .notEnoughDiskSpace(let needed, let available, let path):
      "not enough free disk space in \(path): the delivery benchmark needs "
        + String(format: "%.1f GiB (3 × the file size), %.1f GiB are free", Double(needed) / 1_073_741_824,
                 Double(available) / 1_073_741_824)
        + "; pass a smaller --size-mib or another --work-dir"
    case .serverDidNotStart(let why): "the registry server did not start: \(why)"
    case .commandFailed(let why): why
    case .unexpectedAnswer(let why): why
    case .io(let operation, let code): "\(operation): \(String(cString: strerror(code)))"
    }
  }
}
