import Foundation
import HybridAIProcess
import HybridAIServerTestSupport
import HybridAITestSupport
import Testing

/// `hybrid models pull hf:…` and `--model hf:…` against the Hub stand-in serving the bootstrap's
/// SmolLM2, run as a user would: the model lands in the shared cache with progress on stderr, and
/// answers from there without another byte downloaded.
@Suite("hybrid models pull / --model hf:", .serialized)
struct HubCommandTests {
  let cli = HybridCommandTests()

  func standIn() async throws -> HuggingFaceHubStandIn {
    let weights = try Data(contentsOf: URL(fileURLWithPath: ModelLocatorPath.path), options: .alwaysMapped)
    return try await HuggingFaceHubStandIn.start([
      .init("org/SmolLM2-GGUF", files: [.init("SmolLM2-135M-Instruct.Q4_1.gguf", weights),
                                        .init("README.md", Data("# SmolLM2\n".utf8), isLFS: false)]),
      .init("org/Gated-GGUF", files: [.init("Gated.Q4_K_M.gguf", Data("GGUF".utf8))], isGated: true),
    ])
  }

  @Test("pull fetches into the cache (progress on stderr, the path on stdout); models list --local names it; generate --model hf: then downloads nothing")
  func pullThenGenerate() async throws {
    let hub = try await standIn()
    defer { Task { await hub.stop() } }
    let directory = try TemporaryDirectory("hub-cli")
    defer { directory.remove() }
    let environment = ["HF_ENDPOINT": hub.endpoint.absoluteString, "HF_HUB_CACHE": directory.appending("hub").path]
    let pulled = try await cli.run(["models", "pull", "hf:org/SmolLM2-GGUF:Q4_1"], environment: environment)
    #expect(pulled.status == 0, "\(pulled.stderr)")
    let path = pulled.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    #expect(path.hasSuffix("/models--org--SmolLM2-GGUF/snapshots/\(hub.repositories[0].commit)/SmolLM2-135M-Instruct.Q4_1.gguf"))
    #expect(pulled.stderr.contains("SmolLM2-135M-Instruct.Q4_1.gguf") && pulled.stderr.contains("100%"), "\(pulled.stderr)")
    // The bar's bytes and rate: `…  100%  99.0/99.0 MB  85.2 MB/s`.
    #expect(pulled.stderr.contains(/(\d+\.\d)\/\1 MB  \d+\.\d MB\/s/), "\(pulled.stderr)")

    let listed = try await cli.run(["models", "list", "--local", "--json"],
                                   environment: environment + ["OLLAMA_MODELS": directory.appending("none").path])
    #expect(listed.status == 0, "\(listed.stderr)")
    let rows = try #require(try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]])
    let pulledRow = try #require(rows.first { $0["source"] as? String == "huggingface" }, "\(listed.stdout)")
    #expect(pulledRow["reference"] as? String == "hf:org/SmolLM2-GGUF:Q4_1")
    #expect(pulledRow["architecture"] as? String == "llama" && pulledRow["quantization"] as? String == "Q4_1")
    #expect(pulledRow["file"] as? String == path)

    let transfers = hub.storage.requests.count
    let answer = try await cli.run(["generate", "--model", "hf:org/SmolLM2-GGUF:Q4_1", "--prompt", "Hi", "--greedy",
                                    "--max-tokens", "4", "--json"], environment: environment)
    #expect(answer.status == 0, "\(answer.stderr)")
    #expect(try cli.json(answer.stdout)["source"] as? String == "on-device")
    #expect(hub.storage.requests.count == transfers, "not a byte downloaded")
  }

  @Test("generate --model hf: fetches a model the cache lacks, then answers; what cannot be fetched exits with its own status, saying why")
  func generateFetches() async throws {
    let hub = try await standIn()
    defer { Task { await hub.stop() } }
    let directory = try TemporaryDirectory("hub-cli-fetch")
    defer { directory.remove() }
    let environment = ["HF_ENDPOINT": hub.endpoint.absoluteString, "HF_HUB_CACHE": directory.appending("hub").path]
    let answer = try await cli.run(["generate", "--model", "hf:org/SmolLM2-GGUF", "--prompt", "Hi", "--greedy",
                                    "--max-tokens", "4"], environment: environment)
    #expect(answer.status == 0, "\(answer.stderr)")
    #expect(!answer.stdout.isEmpty)
    #expect(answer.stderr.contains("100%"), "a progress bar: \(answer.stderr)")
    #expect(hub.storage.requests.count == 1)

    // docs/cli.md: 5 no such model, 6 a token wanted or refused, 4 no network to use.
    let missing = try await cli.run(["models", "pull", "hf:org/Nothing"], environment: environment)
    #expect(missing.status == 5)
    #expect(missing.stderr.contains("the Hugging Face Hub has no repository org/Nothing"), "\(missing.stderr)")
    let quantization = try await cli.run(["generate", "--model", "hf:org/SmolLM2-GGUF:Q8_0", "--prompt", "Hi"], environment: environment)
    #expect(quantization.status == 5 && quantization.stderr.contains("Q4_1"), "the error lists what there is: \(quantization.stderr)")
    let gated = try await cli.run(["models", "pull", "hf:org/Gated-GGUF"], environment: environment)
    #expect(gated.status == 6 && gated.stderr.contains("HF_TOKEN"), "\(gated.stderr)")
    let refused = try await cli.run(["models", "pull", "hf:org/Gated-GGUF"], environment: environment + ["HF_TOKEN": "hf_other"])
    #expect(refused.status == 6, "\(refused.stderr)")
    let offline = try await cli.run(["models", "pull", "hf:org/Other-GGUF"], environment: environment + ["HF_HUB_OFFLINE": "1"])
    #expect(offline.status == 4)
    #expect(offline.stderr.contains("offline (HF_HUB_OFFLINE) and not in the cache: hf:org/Other-GGUF"), "\(offline.stderr)")
  }

  /// `ENOSPC` from the kernel: the blob's part file is a link to `/dev/full`, so every write fails
  /// as on a full disk.
  @Test("a full disk: models pull exits 3 saying so, and the cache gets no blob and no snapshot", .enabled(if: FileManager.default.isWritableFile(atPath: "/dev/full")))
  func fullDisk() async throws {
    let hub = try await standIn()
    defer { Task { await hub.stop() } }
    let directory = try TemporaryDirectory("hub-cli-full")
    defer { directory.remove() }
    let repository = directory.appending("hub/models--org--SmolLM2-GGUF")
    let blobs = repository.appendingPathComponent("blobs")
    try FileManager.default.createDirectory(at: blobs, withIntermediateDirectories: true)
    let sha256 = hub.repositories[0].files[0].sha256
    try FileManager.default.createSymbolicLink(atPath: blobs.appendingPathComponent("\(sha256).incomplete").path,
                                               withDestinationPath: "/dev/full")
    let environment = ["HF_ENDPOINT": hub.endpoint.absoluteString, "HF_HUB_CACHE": directory.appending("hub").path]
    let pulled = try await cli.run(["models", "pull", "hf:org/SmolLM2-GGUF:Q4_1"], environment: environment)
    #expect(pulled.status == 3, "docs/cli.md: 3 is a full disk; \(pulled.stderr)")
    #expect(pulled.stderr.contains("space"), "\(pulled.stderr)")
    #expect(!FileManager.default.fileExists(atPath: blobs.appendingPathComponent(sha256).path))
    #expect(!FileManager.default.fileExists(atPath: repository.appendingPathComponent("snapshots").path))
  }

  @Test("models deploy NAME --from hf:… publishes a Hub model into the registry without a manual download")
  func deployFromHub() async throws {
    let hub = try await standIn()
    defer { Task { await hub.stop() } }
    let registry = try await ModelsCommandTests().startRegistry()
    defer { registry.remove() }
    let environment = registry.environment.merging([
      "HF_ENDPOINT": hub.endpoint.absoluteString, "HF_HUB_CACHE": registry.scratch.appendingPathComponent("hub").path,
    ]) { $1 }
    let deployed = try await cli.run(["models", "deploy", "smol", "--from", "hf:org/SmolLM2-GGUF:Q4_1", "--publish", "--json"],
                                     environment: environment)
    #expect(deployed.status == 0, "\(deployed.stderr)")
    #expect(try cli.json(deployed.stdout)["sha256"] as? String == hub.repositories[0].files[0].sha256)
    #expect(hub.storage.requests.count == 1)

    let both = try await cli.run(["models", "deploy", "smol", ModelLocatorPath.path, "--from", "hf:org/SmolLM2-GGUF"],
                                 environment: environment)
    #expect(both.status == 64 && both.stderr.contains("not both"), "\(both.stderr)")
    let missing = try await cli.run(["models", "deploy", "other", "--from", "hf:org/Nothing"], environment: environment)
    #expect(missing.status == 5 && missing.stderr.contains("no repository org/Nothing"), "\(missing.stderr)")
    let list = try await cli.run(["models", "list", "--json"], environment: environment)
    #expect(!list.stdout.contains("\"other\""), "no model is created for a reference that cannot be fetched")
  }

  @Test("serve --model NAME=hf:… fetches a model the cache lacks, then serves it under that name")
  func serveFetches() async throws {
    let hub = try await standIn()
    defer { Task { await hub.stop() } }
    let directory = try TemporaryDirectory("hub-serve")
    defer { directory.remove() }
    let server = try await ServerProcess(
      executable: HybridCommandTests.executable,
      arguments: ["--model", "smol=hf:org/SmolLM2-GGUF:Q4_1", "--data", HybridCommandTests.scratchRegistry()],
      environment: ["HF_ENDPOINT": hub.endpoint.absoluteString, "HF_HUB_CACHE": directory.appending("hub").path])
    defer { server.terminate() }
    let listed = try await TestHTTP.send(.GET, server.baseURL.appending(path: "v1/models"))
    #expect(listed.status == 200 && listed.text.contains("\"smol\""), "\(listed.text)")
    #expect(hub.storage.requests.count == 1)
  }
}

private func + (lhs: [String: String], rhs: [String: String]) -> [String: String] {
  lhs.merging(rhs) { _, new in new }
}
