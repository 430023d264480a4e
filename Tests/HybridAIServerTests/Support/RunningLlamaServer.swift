import Foundation
import HybridAIOpenAI
import HybridAIProcess
import HybridAIServerTestSupport
import HybridAITestSupport
import Testing

/// llama.cpp's own `llama-server` (built by scripts/bootstrap from the pinned source) serving the
/// bootstrap's SmolLM2 on 127.0.0.1: a third-party OpenAI-compatible server for `OpenAIModel`.
final class RunningLlamaServer: Sendable {
  static var executable: URL { TestRepository.dependency("llama-server/llama-server") }

  let port: Int
  private let process: RunningChildProcess

  /// The OpenAI API's root: `http://127.0.0.1:PORT/v1`.
  var apiURL: URL { URL(string: "http://127.0.0.1:\(port)/v1")! }

  private init(port: Int, process: RunningChildProcess) {
    self.port = port
    self.process = process
  }

  /// Starts the server (the bootstrap's SmolLM2 unless `model` names another, e.g. `-hf ORG/REPO`;
  /// 2 threads, 2 slots, 2,048 tokens of context, then `extraArguments`; with `environment` added to
  /// this process's) and waits until `/health` answers 200. A port taken between choosing and
  /// binding it is retried with another.
  static func start(model: [String] = ["-m", RunningTestServer.modelPath], environment: [String: String] = [:],
                    extraArguments: [String] = []) async throws -> RunningLlamaServer {
    let executable = try TestRepository.requireExecutable(Self.executable)
    for _ in 0..<3 {
      let port = try Sockets.freeLoopbackPort()
      let child = ChildProcess(executable: executable, arguments: model + [
        "--host", "127.0.0.1", "--port", String(port), "-t", "2", "-c", "2048", "-np", "2", "--jinja",
        "--no-webui", "--log-disable",
      ] + extraArguments, environment: environment.mapValues { Optional($0) })
      let process = try await child.start()
      let server = RunningLlamaServer(port: port, process: process)
      if await server.waitUntilHealthy() { return server }
      _ = await process.stop(signal: SIGKILL, gracePeriod: .seconds(1))
    }
    throw ChildProcess.Failure.launchFailed("\(executable.path) did not become healthy on three ports")
  }

  private func waitUntilHealthy() async -> Bool {
    let health = URL(string: "http://127.0.0.1:\(port)/health")!
    for _ in 0..<600 {
      guard process.isRunning else { return false }
      if let reply = try? await TestHTTP.send(.GET, health), reply.status == 200 { return true }
      try? await Task.sleep(for: .milliseconds(100))
    }
    return false
  }

  /// Stops the server (SIGTERM, then SIGKILL after 5 s) and waits for it to exit.
  func stop() async { _ = await process.stop(signal: SIGTERM, gracePeriod: .seconds(5)) }

  /// An `OpenAIModel` for this server; llama-server serves its one model whatever the name.
  func openAIModel(configuration: OpenAIModel.Configuration = .init(readTimeout: RunningTestServer.patientReadTimeout)) -> OpenAIModel {
    OpenAIModel(name: "smollm2", apiKey: nil, baseURL: apiURL, configuration: configuration)
  }
}
