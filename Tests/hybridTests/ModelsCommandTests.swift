import Foundation
@testable import HybridAI
@testable import HybridAIFileStorage
import HybridAIProcess
import HybridCommandLine
import Testing
@testable import hybrid

/// `hybrid models …` against a real `hybrid serve --registry-only` child process on loopback.
@Suite("hybrid models", .serialized)
struct ModelsCommandTests {
  let cli = HybridCommandTests()
  static let token = "test-admin-token"

  /// A registry-only server in a fresh directory, and a fresh download directory.
  struct Registry {
    let server: ServerProcess
    let downloads: URL
    let scratch: URL

    var environment: [String: String] {
      ["HYBRIDAI_SERVER": server.baseURL.absoluteString, "HYBRIDAI_ADMIN_TOKEN": ModelsCommandTests.token]
    }

    func remove() {
      server.terminate()
      try? FileManager.default.removeItem(at: scratch)
    }
  }

  func startRegistry() async throws -> Registry {
    try #require(FileManager.default.isExecutableFile(atPath: HybridCommandTests.executable.path), "build the hybrid product first")
    let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("hybrid-models-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    let server = try await ServerProcess(executable: HybridCommandTests.executable, arguments: [
      "--registry-only", "--data", scratch.appendingPathComponent("registry").path, "--admin-token", Self.token])
    return Registry(server: server, downloads: scratch.appendingPathComponent("downloads"), scratch: scratch)
  }

  /// `count` bytes of a seeded pseudo-random pattern, written to a file in `directory`.
  func randomFile(_ name: String, bytes count: Int, seed: UInt64, in directory: URL) throws -> URL {
    var state = seed
    let bytes = (0..<count).map { _ -> UInt8 in
      state = state &* 6364136223846793005 &+ 1442695040888963407
      return UInt8(truncatingIfNeeded: state >> 33)
    }
    let url = directory.appendingPathComponent(name)
    try Data(bytes).write(to: url)
    return url
  }

  @Test("--model registry:NAME: generate fetches the registry's model (a progress bar), then answers from the installed copy, also with the server gone")
  func registryReference() async throws {
    let registry = try await startRegistry()
    defer { registry.remove() }
    let deploy = try await cli.run(["models", "deploy", "smol", ModelLocatorPath.path, "--publish"], environment: registry.environment)
    #expect(deploy.status == 0, "\(deploy.stderr)")
    let env = registry.environment.merging(["XDG_CACHE_HOME": registry.scratch.appendingPathComponent("cache").path]) { $1 }
    let arguments = ["generate", "--model", "registry:smol", "--prompt", "Hi", "--greedy", "--max-tokens", "4", "--json"]
    let first = try await cli.run(arguments, environment: env)
    #expect(first.status == 0, "\(first.stderr)")
    #expect(first.stderr.contains("100%"), "a progress bar: \(first.stderr)")
    #expect(try cli.json(first.stdout)["source"] as? String == "on-device")
    let installed = registry.scratch.appendingPathComponent("cache/hybridai/models/smol")
    #expect(FileManager.default.fileExists(atPath: installed.path))
    let listed = try await cli.run(["models", "list", "--local", "--json"], environment: env)
    let rows = try #require(JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]], "\(listed.stdout)")
    let row = try #require(rows.first { $0["reference"] as? String == "registry:smol" }, "models list --local: \(listed.stdout)")
    #expect(row["source"] as? String == "registry" && row["architecture"] as? String == "llama")
    #expect((row["file"] as? String)?.hasPrefix(installed.path) == true)

    let pulled = try await cli.run(["models", "pull", "registry:smol"], environment: env)
    #expect(pulled.status == 0 && pulled.stdout.hasPrefix(installed.path), "\(pulled.stdout)\(pulled.stderr)")

    await registry.server.stop()
    let again = try await cli.run(arguments, environment: env)
    #expect(again.status == 0, "the installed copy, without the server: \(again.stderr)")
    #expect(try cli.json(again.stdout)["text"] as? String == (try cli.json(first.stdout)["text"] as? String))
  }

  @Test("deploy, list, get (latest, then local without the server), rollout, rm")
  func lifecycle() async throws {
    let registry = try await startRegistry()
    defer { registry.remove() }
    let env = registry.environment
    let model = BootstrapTFLiteModels.path("selfie_segmentation")

    let deploy = try await cli.run(["models", "deploy", "selfie", model, "--publish", "--tag", "vision", "--json"], environment: env)
    #expect(deploy.status == 0, "\(deploy.stderr)")
    let version = try cli.json(deploy.stdout)
    #expect(version["version"] as? String == "1")
    #expect(version["format"] as? String == "tflite")
    #expect(version["state"] as? String == "published")

    let list = try await cli.run(["models", "list"], environment: env)
    #expect(list.stdout.contains("selfie [vision] · serving version 1"), "\(list.stdout)")

    let get = try await cli.run(["models", "get", "selfie", "--dir", registry.downloads.path, "--json"], environment: env)
    #expect(get.status == 0, "\(get.stderr)")
    let downloaded = try cli.json(get.stdout)
    let path = try #require(downloaded["path"] as? String)
    #expect(FileManager.default.contentsEqual(atPath: path, andPath: model))
    #expect(get.stderr.contains("100%"), "a progress bar on standard error: \(get.stderr)")

    let second = try randomFile("v2.bin", bytes: 300_000, seed: 2, in: registry.scratch)
    #expect(try await cli.run(["models", "deploy", "selfie", second.path, "--publish"], environment: env).status == 0)
    let show = try await cli.run(["models", "show", "selfie", "--version", "2", "--json"], environment: env)
    #expect(show.status == 0, "\(show.stderr)")
    let shown = try cli.json(show.stdout)
    #expect(shown["version"] as? String == "2")
    #expect(shown["sizeBytes"] as? Int == 300_000)
    #expect(shown["sha256"] as? String == SHA256Digest.hex(of: try Data(contentsOf: second)))
    let missing = try await cli.run(["models", "show", "selfie", "--version", "9"], environment: env)
    #expect(missing.status != 0 && missing.stderr.contains("9"), "\(missing.stderr)")
    let rollout = try await cli.run(["models", "rollout", "selfie", "1=90", "2=10"], environment: env)
    #expect(rollout.status == 0, "\(rollout.stderr)")
    #expect(rollout.stdout.contains("roll-out 1=90% 2=10%"), "\(rollout.stdout)")
    #expect(try await cli.run(["models", "rollout", "selfie", "1=90", "2=5"], environment: env).status != 0, "splits must sum to 100")

    await registry.server.stop()
    let offline = try await cli.run(["models", "get", "selfie", "--type", "local", "--dir", registry.downloads.path], environment: env)
    #expect(offline.status == 0, "the local copy needs no server: \(offline.stderr)")
    #expect(offline.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == path)
    let latest = try await cli.run(["models", "get", "selfie", "--type", "latest", "--dir", registry.downloads.path], environment: env)
    #expect(latest.status == 4, "latest needs the server, which cannot be reached: \(latest.stderr)")
    #expect(FileManager.default.fileExists(atPath: path), "a failed check leaves the local copy in place")
  }

  @Test("admin commands without a token or with a wrong one are refused")
  func adminNeedsToken() async throws {
    let registry = try await startRegistry()
    defer { registry.remove() }
    let server = ["--server", registry.server.baseURL.absoluteString]
    let missing = try await cli.run(["models", "list"] + server, environment: ["HYBRIDAI_ADMIN_TOKEN": ""])
    #expect(missing.status == 64)
    #expect(missing.stderr.contains("--token"), "\(missing.stderr)")
    // The usage line is the command's own, not the root's "hybrid <subcommand>".
    #expect(missing.stderr.contains("Usage: hybrid models list") && !missing.stderr.contains("<subcommand>"), "\(missing.stderr)")
    let wrong = try await cli.run(["models", "list", "--token", "nope"] + server)
    #expect(wrong.status != 0)
    #expect(wrong.stderr.lowercased().contains("token"), "\(wrong.stderr)")
  }

  @Test("deploy of a folder or of a file that is not there is refused before the server is asked: no empty model")
  func deployChecksTheFileFirst() async throws {
    let registry = try await startRegistry()
    defer { registry.remove() }
    let env = registry.environment
    let folder = registry.scratch.appendingPathComponent("a-folder")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    for (path, reason) in [(folder.path, "is a folder, not a file"), (folder.appendingPathComponent("missing.tflite").path, "no file at")] {
      let deploy = try await cli.run(["models", "deploy", "ghost", path], environment: env)
      #expect(deploy.status == 64 && deploy.stderr.contains(reason), "\(deploy.stderr)")
      #expect(deploy.stderr.contains("Usage: hybrid models deploy"), "\(deploy.stderr)")
    }
    let listed = try await cli.run(["models", "list"], environment: env)
    #expect(listed.status == 0 && !listed.stdout.contains("ghost"), "no model was created: \(listed.stdout)")
  }

  @Test("a file-size limit in the child (RLIMIT_FSIZE) is a typed notEnoughSpace (exit 3); the old version stays")
  func fileSizeLimit() async throws {
    let registry = try await startRegistry()
    defer { registry.remove() }
    let env = registry.environment
    let small = try randomFile("v1.bin", bytes: 100_000, seed: 1, in: registry.scratch)
    let large = try randomFile("v2.bin", bytes: 2_000_000, seed: 2, in: registry.scratch)
    #expect(try await cli.run(["models", "deploy", "blob", small.path, "--publish"], environment: env).status == 0)
    let first = try await cli.run(["models", "get", "blob", "--dir", registry.downloads.path], environment: env)
    #expect(first.status == 0, "\(first.stderr)")
    let firstPath = first.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    #expect(try await cli.run(["models", "deploy", "blob", large.path, "--publish"], environment: env).status == 0)

    // sh's `ulimit -f` counts 512-byte blocks: 1 MiB here, so the 2 MB version cannot be written.
    // SIGXFSZ is ignored so that write(2) fails with EFBIG instead of killing the process.
    let command = "trap '' XFSZ; ulimit -f 2048; exec \"$0\" models get blob --dir \"$1\""
    let limited = try await cli.run(["-c", command, HybridCommandTests.executable.path, registry.downloads.path],
                              environment: env, executable: URL(fileURLWithPath: "/bin/sh"))
    #expect(limited.status == 3, "stdout: \(limited.stdout)\nstderr: \(limited.stderr)")
    #expect(limited.stderr.contains("space"), "\(limited.stderr)")

    let after = try await cli.run(["models", "get", "blob", "--type", "local", "--dir", registry.downloads.path], environment: env)
    #expect(after.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == firstPath)
    #expect(FileManager.default.contentsEqual(atPath: firstPath, andPath: small.path), "the old version is intact")

    let unlimited = try await cli.run(["models", "get", "blob", "--dir", registry.downloads.path, "--json"], environment: env)
    #expect(unlimited.status == 0, "\(unlimited.stderr)")
    let installed = try cli.json(unlimited.stdout)
    #expect(installed["version"] as? String == "2")
    #expect(FileManager.default.contentsEqual(atPath: try #require(installed["path"] as? String), andPath: large.path))
  }
}
