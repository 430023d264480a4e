import Foundation
import CLinuxExtras
import HybridAI
import HybridAIProcess
import HybridAIServerTestSupport
import HybridAITestSupport
import ModelDelivery
import Synchronization
import Testing

/// `HuggingFaceHubClient` against the tests' Hub stand-in: the cache filled as huggingface_hub
/// lays it out, redirects to the storage host, resumed transfers, hashes checked, and every typed
/// error of a missing, gated or broken repository.
@Suite("Hugging Face Hub: fetching into the shared cache")
struct HuggingFaceHubTests {
  static let weights = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
  static let projector = Data(repeating: 7, count: 5_000)

  static let repositories: [HuggingFaceHubStandIn.Repository] = [
    .init("org/Tiny-GGUF", files: [
      .init("tiny-Q4_K_M.gguf", weights),
      .init("tiny-Q8_0.gguf", weights + Data([1])),
      .init("mmproj-tiny-f16.gguf", projector),
      .init("README.md", Data("# Tiny\n".utf8), isLFS: false),
    ]),
    .init("org/Split-GGUF", files: [
      .init("big-Q4_K_M-00001-of-00002.gguf", Data(repeating: 1, count: 4_000)),
      .init("big-Q4_K_M-00002-of-00002.gguf", Data(repeating: 2, count: 3_000)),
    ]),
    .init("org/NoModel", files: [.init("README.md", Data("nothing".utf8), isLFS: false)]),
    .init("org/Gated-GGUF", files: [.init("gated-Q4_K_M.gguf", Data(repeating: 9, count: 2_000))], isGated: true),
  ]

  func client(_ standIn: HuggingFaceHubStandIn, cache: URL, token: String? = nil, offline: Bool = false) -> HuggingFaceHubClient {
    HuggingFaceHubClient(
      configuration: HuggingFaceHubConfiguration(endpoint: standIn.endpoint, token: token, isOffline: offline),
      cache: HuggingFaceCache(directory: cache),
      retryPolicy: ModelDownloadRetryPolicy(initialBackoff: .milliseconds(1), maxBackoff: .milliseconds(5)))
  }

  @Test("hf:ORG/REPO: the Q4_K_M GGUF and its projector, in huggingface_hub's layout, through the storage host; a second fetch downloads nothing")
  func fetchIntoTheCache() async throws {
    let standIn = try await HuggingFaceHubStandIn.start(Self.repositories)
    defer { Task { await standIn.stop() } }
    let directory = try TemporaryDirectory("hub-cache")
    defer { directory.remove() }
    let reference = try ModelReference("hf:org/Tiny-GGUF")
    let seen = Mutex<[ModelFetchProgress]>([])
    let model = try await client(standIn, cache: directory.url).fetch(reference) { progress in seen.withLock { $0.append(progress) } }

    #expect(model.weights.lastPathComponent == "tiny-Q4_K_M.gguf")
    #expect(try Data(contentsOf: model.weights) == Self.weights)
    #expect(try model.projector.map { try Data(contentsOf: $0) } == Self.projector)
    let repository = Self.repositories[0]
    let folder = directory.url.appendingPathComponent("models--org--Tiny-GGUF")
    #expect(try String(contentsOf: folder.appendingPathComponent("refs/main"), encoding: .utf8) == repository.commit)
    let link = folder.appendingPathComponent("snapshots/\(repository.commit)/tiny-Q4_K_M.gguf").path
    #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == "../../blobs/\(repository.files[0].sha256)")
    let blobs = try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("blobs").path).sorted()
    #expect(blobs == [repository.files[0].sha256, repository.files[2].sha256].sorted(), "no .incomplete left, no other quant")
    #expect(standIn.storage.requests.count == 2, "the two files came from the storage host")
    let progress = seen.withLock { $0 }
    #expect(progress.last?.receivedBytes == Int64(Self.weights.count + Self.projector.count))
    #expect(progress.last?.totalBytes == Int64(Self.weights.count + Self.projector.count))
    #expect(zip(progress, progress.dropFirst()).allSatisfy { $0.receivedBytes <= $1.receivedBytes })

    let again = try await client(standIn, cache: directory.url).model(for: reference)
    #expect(again.weights.path == model.weights.path)
    let refetched = try await client(standIn, cache: directory.url).fetch(try ModelReference("hf:org/Tiny-GGUF:Q8_0"))
    #expect(refetched.weights.lastPathComponent == "tiny-Q8_0.gguf")
    #expect(standIn.storage.requests.count == 3, "only the Q8_0 file was new (the projector was cached)")
  }

  @Test("a transfer cut halfway resumes with Range; a cached blob whose bytes do not match is fetched again")
  func resumeAndRepair() async throws {
    let standIn = try await HuggingFaceHubStandIn.start(Self.repositories)
    defer { Task { await standIn.stop() } }
    let directory = try TemporaryDirectory("hub-resume")
    defer { directory.remove() }
    standIn.cutNextTransfers(1)
    let model = try await client(standIn, cache: directory.url).fetch(try ModelReference("hf:org/Tiny-GGUF"))
    #expect(try Data(contentsOf: model.weights) == Self.weights)
    let ranged = standIn.storage.requests.compactMap { $0.header("Range") }
    #expect(ranged.count == 1 && ranged[0].hasPrefix("bytes=") && ranged[0] != "bytes=0-", "\(ranged)")

    // The same size, other bytes: never used, fetched again.
    let blob = model.weights.resolvingSymlinksInPath()
    var damaged = Self.weights
    damaged[0] ^= 1
    try damaged.write(to: blob)
    let before = standIn.storage.requests.count
    let repaired = try await client(standIn, cache: directory.url).fetch(try ModelReference("hf:org/Tiny-GGUF"))
    #expect(try Data(contentsOf: repaired.weights) == Self.weights)
    #expect(standIn.storage.requests.count == before + 1)
  }

  @Test("a cached blob that is truncated or damaged is never loaded: model(for:) fetches it again, offline it is a typed error; an intact one is hashed once")
  func damagedCachedBlob() async throws {
    let standIn = try await HuggingFaceHubStandIn.start(Self.repositories)
    defer { Task { await standIn.stop() } }
    let directory = try TemporaryDirectory("hub-damaged")
    defer { directory.remove() }
    let reference = try ModelReference("hf:org/Tiny-GGUF")
    let model = try await client(standIn, cache: directory.url).fetch(reference)
    let blob = model.weights.resolvingSymlinksInPath().path
    #expect(getxattr(blob, "user.hybridai.sha256-verified", nil, 0) > 0, "checked as it arrived, and marked so")
    let fetched = standIn.storage.requests.count
    #expect(try await client(standIn, cache: directory.url).model(for: reference).weights == model.weights)
    #expect(standIn.storage.requests.count == fetched)

    for damage in [Self.weights.prefix(1_000), Data(Self.weights.reversed())] {   // truncated; the same size, other bytes
      try damage.write(to: URL(fileURLWithPath: blob))
      await #expect {
        _ = try await client(standIn, cache: directory.url, offline: true).model(for: reference)
      } throws: { error in
        guard case .damaged(_, let reason)? = error as? ModelReferenceError else { return false }
        return reason.contains("tiny-Q4_K_M.gguf's blob does not have the SHA-256 it is named by")
      }
      let before = standIn.storage.requests.count
      let repaired = try await client(standIn, cache: directory.url).model(for: reference)
      #expect(try Data(contentsOf: repaired.weights) == Self.weights)
      #expect(standIn.storage.requests.count == before + 1, "fetched again")
    }
  }

  @Test("a file list that names a path outside the repository (../, absolute, empty parts) or a hash that is not one: invalidResponse, nothing written outside the cache")
  func pathsOutsideTheRepository() async throws {
    let escapes = ["../../../../escaped-Q4_K_M.gguf", "/tmp/escaped-Q4_K_M.gguf", "a//escaped-Q4_K_M.gguf", "./escaped-Q4_K_M.gguf"]
    let standIn = try await HuggingFaceHubStandIn.start(escapes.enumerated().map { index, path in
      .init("org/Evil\(index)-GGUF", files: [.init(path, Data(repeating: 3, count: 100))])
    })
    defer { Task { await standIn.stop() } }
    let directory = try TemporaryDirectory("hub-evil")
    defer { directory.remove() }
    let cache = directory.appending("cache")
    for (index, path) in escapes.enumerated() {
      await #expect {
        _ = try await client(standIn, cache: cache).fetch(try ModelReference("hf:org/Evil\(index)-GGUF"))
      } throws: { error in
        guard case .invalidResponse(let reason)? = error as? HuggingFaceHubError else { return false }
        return reason == "the file list names a path outside the repository: \"\(path)\""
      }
    }
    #expect(!FileManager.default.fileExists(atPath: directory.appending("escaped-Q4_K_M.gguf").path))
    #expect(!FileManager.default.fileExists(atPath: "/tmp/escaped-Q4_K_M.gguf"))
    #expect(standIn.storage.requests.isEmpty, "nothing was downloaded")
  }

  @Test("bytes that do not have the LFS hash: hashMismatch, nothing in the cache")
  func hashMismatch() async throws {
    let standIn = try await HuggingFaceHubStandIn.start(Self.repositories)
    defer { Task { await standIn.stop() } }
    let directory = try TemporaryDirectory("hub-hash")
    defer { directory.remove() }
    standIn.corruptBlobs(true)
    await #expect {
      _ = try await client(standIn, cache: directory.url).fetch(try ModelReference("hf:org/Tiny-GGUF"))
    } throws: { error in
      guard case .transferFailed(let file, .hashMismatch)? = error as? HuggingFaceHubError else { return false }
      return file == "tiny-Q4_K_M.gguf"
    }
    let folder = directory.url.appendingPathComponent("models--org--Tiny-GGUF")
    #expect((try? FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("blobs").path)) == [])
    #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("snapshots").path))
    #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("refs/main").path))
  }

  @Test("a split model comes with every part; the cache then resolves it by its first part")
  func splitModel() async throws {
    let standIn = try await HuggingFaceHubStandIn.start(Self.repositories)
    defer { Task { await standIn.stop() } }
    let directory = try TemporaryDirectory("hub-split")
    defer { directory.remove() }
    let model = try await client(standIn, cache: directory.url).fetch(try ModelReference("hf:org/Split-GGUF"))
    #expect(model.weights.lastPathComponent == "big-Q4_K_M-00001-of-00002.gguf")
    let second = model.weights.deletingLastPathComponent().appendingPathComponent("big-Q4_K_M-00002-of-00002.gguf")
    #expect(try Data(contentsOf: second) == Data(repeating: 2, count: 3_000))
  }

  @Test("typed errors: unknown repository or revision, no GGUF, a quantization that is not there (listing those that are)")
  func missing() async throws {
    let standIn = try await HuggingFaceHubStandIn.start(Self.repositories)
    defer { Task { await standIn.stop() } }
    let directory = try TemporaryDirectory("hub-missing")
    defer { directory.remove() }
    let hub = client(standIn, cache: directory.url)
    await #expect(throws: HuggingFaceHubError.repositoryNotFound("org/Nothing")) {
      _ = try await hub.fetch(try ModelReference("hf:org/Nothing"))
    }
    await #expect(throws: HuggingFaceHubError.revisionNotFound(repository: "org/Tiny-GGUF", revision: "v9")) {
      _ = try await hub.fetch(try ModelReference("hf:org/Tiny-GGUF@v9"))
    }
    await #expect(throws: HuggingFaceHubError.noModel(repository: "org/NoModel", revision: "main")) {
      _ = try await hub.fetch(try ModelReference("hf:org/NoModel"))
    }
    let q2 = try ModelReference("hf:org/Tiny-GGUF:Q2_K")
    await #expect(throws: HuggingFaceHubError.quantizationNotFound(q2, available: ["Q4_K_M", "Q8_0"])) {
      _ = try await hub.fetch(q2)
    }
    #expect(standIn.storage.requests.isEmpty)
    #expect((try? FileManager.default.contentsOfDirectory(atPath: directory.url.path)) == [], "nothing half-installed")
  }

  @Test("a gated repository: 401 without a token, 403 with one not granted, fetched with the granted one (not sent to the storage host)")
  func gated() async throws {
    let standIn = try await HuggingFaceHubStandIn.start(Self.repositories)
    defer { Task { await standIn.stop() } }
    let directory = try TemporaryDirectory("hub-gated")
    defer { directory.remove() }
    let reference = try ModelReference("hf:org/Gated-GGUF")
    await #expect { _ = try await client(standIn, cache: directory.url).fetch(reference) } throws: { error in
      if case .authenticationRequired(let repository, let message)? = error as? HuggingFaceHubError {
        return repository == "org/Gated-GGUF" && message.contains("restricted")
      }
      return false
    }
    await #expect { _ = try await client(standIn, cache: directory.url, token: "hf_other").fetch(reference) } throws: { error in
      if case .accessDenied? = error as? HuggingFaceHubError { return true }
      return false
    }
    let model = try await client(standIn, cache: directory.url, token: standIn.grantedToken).fetch(reference)
    #expect(try Data(contentsOf: model.weights) == Data(repeating: 9, count: 2_000))
    #expect(standIn.storage.requests.allSatisfy { $0.header("Authorization") == nil }, "the token stays with the Hub")
    #expect(standIn.hub.requests.last?.header("Authorization") == "Bearer \(standIn.grantedToken)")
  }

  @Test("HF_HUB_OFFLINE: the cache only — a cached model with no request, else 'offline and not in the cache'")
  func offline() async throws {
    let standIn = try await HuggingFaceHubStandIn.start(Self.repositories)
    defer { Task { await standIn.stop() } }
    let directory = try TemporaryDirectory("hub-offline")
    defer { directory.remove() }
    let reference = try ModelReference("hf:org/Tiny-GGUF")
    await #expect(throws: HuggingFaceHubError.offlineAndNotCached(reference)) {
      _ = try await client(standIn, cache: directory.url, offline: true).fetch(reference)
    }
    #expect(standIn.hub.requests.isEmpty)
    _ = try await client(standIn, cache: directory.url).fetch(reference)
    let requests = standIn.hub.requests.count
    let cached = try await client(standIn, cache: directory.url, offline: true).fetch(reference)
    #expect(cached.weights.lastPathComponent == "tiny-Q4_K_M.gguf")
    #expect(standIn.hub.requests.count == requests)
  }

  @Test("huggingface_hub and HybridAI share the cache: what hf_hub_download fetched is used with no request; what HybridAI fetched, try_to_load_from_cache and a local-only hf_hub_download find")
  func sharedWithHuggingFaceHub() async throws {
    let standIn = try await HuggingFaceHubStandIn.start(Self.repositories)
    defer { Task { await standIn.stop() } }
    let directory = try TemporaryDirectory("hub-shared")
    defer { directory.remove() }
    let cache = directory.appending("hub")
    let environment = ["HF_ENDPOINT": standIn.endpoint.absoluteString, "HF_HUB_CACHE": cache.path,
                       "HOME": directory.url.path, "HF_HUB_DISABLE_TELEMETRY": "1", "PATH": "/usr/bin:/bin"]
    let download = """
      import sys
      from huggingface_hub import hf_hub_download
      for name in sys.argv[1:]:
          print(hf_hub_download("org/Tiny-GGUF", name))
      """
    let fetched = try await ChildProcess.run(TestRepository.python, ["-c", download, "tiny-Q4_K_M.gguf", "mmproj-tiny-f16.gguf"],
                                             mergingStandardError: true, environment: environment)
    #expect(fetched.status == 0, "\(fetched.output)")
    let hubRequests = standIn.hub.requests.count, storageRequests = standIn.storage.requests.count
    #expect(storageRequests == 2, "huggingface_hub fetched both files from the storage host")

    let model = try await client(standIn, cache: cache).model(for: try ModelReference("hf:org/Tiny-GGUF"))
    #expect(try Data(contentsOf: model.weights) == Self.weights)
    #expect(model.projector?.lastPathComponent == "mmproj-tiny-f16.gguf")
    #expect(standIn.hub.requests.count == hubRequests && standIn.storage.requests.count == storageRequests,
            "not a byte downloaded")
    #expect(fetched.output.contains(model.weights.path), "the same snapshot path: \(fetched.output)")

    _ = try await client(standIn, cache: cache).fetch(try ModelReference("hf:org/Tiny-GGUF:Q8_0"))
    let find = """
      from huggingface_hub import try_to_load_from_cache, hf_hub_download
      print(try_to_load_from_cache("org/Tiny-GGUF", "tiny-Q8_0.gguf"))
      print(hf_hub_download("org/Tiny-GGUF", "tiny-Q8_0.gguf", local_files_only=True))
      """
    let found = try await ChildProcess.run(TestRepository.python, ["-c", find], mergingStandardError: true,
                                           environment: environment + ["HF_HUB_OFFLINE": "1"])
    #expect(found.status == 0, "\(found.output)")
    let lines = found.output.split(separator: "\n").map(String.init)
    #expect(lines.count == 2 && lines.allSatisfy { $0.hasSuffix("/tiny-Q8_0.gguf") && FileManager.default.fileExists(atPath: $0) },
            "\(found.output)")
  }

  @Test("an hf: model as a model file: not downloaded, then downloading with its bytes so far (a cut transfer's retry waits), then ready at the cache's path; a failed fetch says why and prepareFile tries again")
  func modelFileSource() async throws {
    let standIn = try await HuggingFaceHubStandIn.start(Self.repositories)
    defer { Task { await standIn.stop() } }
    let directory = try TemporaryDirectory("hub-model-file")
    defer { directory.remove() }
    // A retry that waits long enough to be seen between the cut and the resume.
    let hub = HuggingFaceHubClient(
      configuration: HuggingFaceHubConfiguration(endpoint: standIn.endpoint, token: nil, isOffline: false),
      cache: HuggingFaceCache(directory: directory.url),
      retryPolicy: ModelDownloadRetryPolicy(initialBackoff: .seconds(2), maxBackoff: .seconds(2)))
    let file = HuggingFaceModelFile(try ModelReference("hf:org/Tiny-GGUF"), hub: hub)
    #expect(file.fileState == .notDownloaded)
    #expect(file.localModel == nil)
    standIn.cutNextTransfers(1)
    file.prepareFile()
    var states: [ModelFileState] = []
    let deadline = ContinuousClock.now + .seconds(300)
    while ContinuousClock.now < deadline {
      let state = file.fileState
      if states.last != state { states.append(state) }
      if case .ready = state { break }
      try await Task.sleep(for: .milliseconds(20))
    }
    let total = Int64(Self.weights.count + Self.projector.count)
    #expect(states.contains { state in
      if case .downloading(let received, let expected) = state { received > 0 && received < total && expected == total } else { false }
    }, "\(states)")
    let model = try #require(file.localModel)
    #expect(states.last == .ready(path: model.weights.path, version: standIn.repositories[0].commit))
    #expect(try Data(contentsOf: model.weights) == Self.weights)
    #expect(model.projector != nil)

    // Another object for the same reference finds it in the cache with no request.
    let requests = standIn.hub.requests.count
    let fetcher = { var fetcher = ModelReferenceFetcher(environment: [:]); fetcher.hub = hub; return fetcher }()
    #expect(fetcher.modelFile(for: try ModelReference("hf:org/Tiny-GGUF")).fileState == states.last)
    #expect(standIn.hub.requests.count == requests)

    let missing = HuggingFaceModelFile(try ModelReference("hf:org/Tiny-GGUF:Q2_K"), hub: hub)
    missing.prepareFile()
    var failure: String?
    while ContinuousClock.now < deadline, failure == nil {
      if case .failed(let reason) = missing.fileState { failure = reason }
      try await Task.sleep(for: .milliseconds(20))
    }
    #expect(failure?.contains("Q4_K_M") == true && failure?.contains("Q8_0") == true, "\(failure ?? "no failure")")
    let before = standIn.hub.requests.count
    missing.prepareFile()
    while ContinuousClock.now < deadline {
      if case .failed = missing.fileState { break }
      try await Task.sleep(for: .milliseconds(20))
    }
    #expect(standIn.hub.requests.count > before, "prepareFile asks the Hub again after a failure")
  }

  @Test("the environment: MODEL_ENDPOINT before HF_ENDPOINT (as llama.cpp), HF_TOKEN before HF_TOKEN_PATH before $HF_HOME/token, HF_HUB_OFFLINE")
  func environment() throws {
    let directory = try TemporaryDirectory("hub-environment")
    defer { directory.remove() }
    let tokenFile = directory.appending("token")
    try Data("hf_from_file\n".utf8).write(to: tokenFile)
    try FileManager.default.createDirectory(at: directory.appending("home"), withIntermediateDirectories: true)
    try Data("hf_from_home".utf8).write(to: directory.appending("home/token"))
    let base = ["HOME": directory.url.path]
    #expect(HuggingFaceHubConfiguration(environment: base).endpoint.absoluteString == "https://huggingface.co")
    #expect(HuggingFaceHubConfiguration(environment: base + ["MODEL_ENDPOINT": "http://mirror/"]).endpoint.absoluteString == "http://mirror")
    #expect(HuggingFaceHubConfiguration(environment: base + ["MODEL_ENDPOINT": "http://b", "HF_ENDPOINT": "http://a"])
      .endpoint.absoluteString == "http://b")
    #expect(HuggingFaceHubConfiguration(environment: base).token == nil)
    #expect(HuggingFaceHubConfiguration(environment: base + ["HF_HOME": directory.appending("home").path]).token == "hf_from_home")
    #expect(HuggingFaceHubConfiguration(environment: base + ["HF_TOKEN_PATH": tokenFile.path]).token == "hf_from_file")
    #expect(HuggingFaceHubConfiguration(environment: base + ["HF_TOKEN_PATH": tokenFile.path, "HF_TOKEN": "hf_env"]).token == "hf_env")
    #expect(HuggingFaceHubConfiguration(environment: base + ["HF_HUB_OFFLINE": "1"]).isOffline)
    #expect(!HuggingFaceHubConfiguration(environment: base + ["HF_HUB_OFFLINE": "0"]).isOffline)
  }
}

private func + (lhs: [String: String], rhs: [String: String]) -> [String: String] {
  lhs.merging(rhs) { _, new in new }
}
