import Foundation
import HybridAI
import HybridAIProcess
import HybridAIServerTestSupport
import HybridAITestSupport
import Testing

/// `hybrid-registry`: the model registry as an executable of its own, for deployments that deliver
/// custom models and run no language model.
@Suite("hybrid-registry: the registry alone")
struct RegistryExecutableTests {
  @Test("links neither llama.cpp nor LiteRT nor the image codecs, serves a model that hybrid models deploys and gets, and says its version")
  func registryAlone() async throws {
    let executable = try TestRepository.builtProduct("hybrid-registry")
    let ldd = try await ChildProcess.run(URL(fileURLWithPath: "/usr/bin/ldd"), [executable.path])
    for native in ["libllama", "libggml", "libLiteRt", "libpng", "libjpeg"] {
      #expect(!ldd.output.contains(native), "hybrid-registry links \(native): \(ldd.output)")
    }
    let version = try await ChildProcess.run(executable, ["--version"])
    #expect(version.output.trimmingCharacters(in: .whitespacesAndNewlines) == HybridAIVersion.current)

    let scratch = try TemporaryDirectory()
    defer { scratch.remove() }
    let server = try await ServeLifecycleTests.Server(
      executable: executable, command: [], arguments: ["--data", scratch.appending("registry").path, "--admin-token", "admin"])
    let url = "http://127.0.0.1:\(server.port)"
    let model = try TestRepository.model("tflite/okay_nabu.tflite")
    let cli = HybridCommandTests()
    let deploy = try await cli.run(["models", "deploy", "wake", model.path, "--publish", "--server", url, "--token", "admin"])
    let get = try await cli.run(["models", "get", "wake", "--server", url, "--dir", scratch.appending("downloads").path])
    let health = try await TestHTTP.send(.GET, try #require(URL(string: "\(url)/healthz")))
    let (status, stderr) = await server.stop()
    #expect(deploy.status == 0, "\(deploy.stderr)")
    #expect(get.status == 0, "\(get.stderr)")
    let downloaded = get.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    #expect(FileManager.default.contentsEqual(atPath: downloaded, andPath: model.path), "\(get.stdout)")
    #expect(health.header("server") == "HybridAI/\(HybridAIVersion.current)")
    #expect(status == 0, "\(stderr.suffix(1500))")
  }
}
