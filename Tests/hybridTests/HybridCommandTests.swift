import Foundation
import HybridAIOnDevice
@testable import hybrid
import Testing

/// Runs the built `hybrid` executable as a user would, and parses its arguments in process.
@Suite("hybrid command line", .serialized)
struct HybridCommandTests {
  struct Run {
    var status: Int32
    var stdout: String
    var stderr: String
  }

  static var executable: URL {
    // The test bundle lives next to the package's products in .build/<configuration>/.
    let directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    let candidates = [directory, directory.deletingLastPathComponent(), Bundle.main.bundleURL.deletingLastPathComponent()]
    return candidates.map { $0.appendingPathComponent("hybrid") }
      .first { FileManager.default.isExecutableFile(atPath: $0.path) } ?? directory.appendingPathComponent("hybrid")
  }

  /// Runs `hybrid arguments`, with `input` on standard input when given; returns its exit status
  /// and output. Standard error is read on a thread of its own, so neither pipe can fill and stall
  /// the child while the other is read.
  func run(_ arguments: [String], input: String? = nil, environment: [String: String] = [:],
           executable: URL = HybridCommandTests.executable) throws -> Run {
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    let stdin = Pipe(), out = Pipe(), err = Pipe()
    process.standardInput = input == nil ? FileHandle.nullDevice : stdin
    process.standardOutput = out
    process.standardError = err
    try process.run()
    if let input {
      stdin.fileHandleForWriting.write(Data(input.utf8))
      try stdin.fileHandleForWriting.close()
    }
    let standardError = PipeReader(err)
    let stdout = out.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return Run(status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
               stderr: String(decoding: standardError.wait(), as: UTF8.self))
  }

  /// Reads a pipe to its end on a thread of its own.
  final class PipeReader: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    private var data = Data()   // written by the reading thread before `done` is signalled

    init(_ pipe: Pipe) {
      Thread.detachNewThread { [self] in
        data = pipe.fileHandleForReading.readDataToEndOfFile()
        done.signal()
      }
    }

    func wait() -> Data {
      done.wait()
      return data
    }
  }

  /// ``run(_:input:environment:executable:)`` on a thread of its own, for async tests: waiting for a
  /// child process on the cooperative pool would starve every other test's async work (2 threads here).
  func runDetached(_ arguments: [String], input: String? = nil, environment: [String: String] = [:],
                   executable: URL = HybridCommandTests.executable) async throws -> Run {
    try await withCheckedThrowingContinuation { continuation in
      Thread.detachNewThread {
        continuation.resume(with: Result { try self.run(arguments, input: input, environment: environment, executable: executable) })
      }
    }
  }

  /// A fresh registry directory for a `hybrid serve` under test (so none is made in the home directory).
  static func scratchRegistry() -> String {
    FileManager.default.temporaryDirectory.appendingPathComponent("hybrid-serve-\(UUID().uuidString)").path
  }

  func json(_ text: String) throws -> [String: Any] {
    try #require(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
  }

  @Test("generate --json prints text, modelVersion, usage, finishReason and timings")
  func generateJSON() throws {
    try #require(FileManager.default.isExecutableFile(atPath: Self.executable.path), "build the hybrid product first")
    let result = try run(["generate", "--prompt", "Say hello.", "--greedy", "--max-tokens", "12", "--json"])
    #expect(result.status == 0, "\(result.stderr)")
    let object = try json(result.stdout)
    #expect((object["text"] as? String)?.isEmpty == false)
    #expect(object["modelVersion"] as? String == "SmolLM2-135M-Instruct.Q4_1")
    let usage = try #require(object["usage"] as? [String: Any])
    #expect((usage["outputTokens"] as? Int ?? 0) > 0)
    #expect(["stop", "maxTokens"].contains(object["finishReason"] as? String ?? ""))
    #expect(object["timings"] is [String: Any])
  }

  @Test("generate streams plain text without --json")
  func generateStreams() throws {
    let result = try run(["generate", "--prompt", "Say hello.", "--greedy", "--max-tokens", "8"])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(!result.stdout.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty)
  }

  @Test("HYBRIDAI_ON_DEVICE=off: a typed 'disabled' error and exit status 1")
  func disabledByEnvironment() throws {
    let result = try run(["generate", "--prompt", "Hi", "--json"], environment: ["HYBRIDAI_ON_DEVICE": "off"])
    #expect(result.status == 1)
    let error = try #require(try json(result.stdout)["error"] as? [String: Any])
    #expect(error["kind"] as? String == "modelUnavailable.disabled")
  }

  @Test("a missing model file: modelNotReady with the path in the message")
  func missingModel() throws {
    let result = try run(["generate", "--prompt", "Hi", "--model", "/nonexistent/m.gguf"])
    #expect(result.status == 1)
    #expect(result.stderr.contains("not downloaded yet") && result.stderr.contains("/nonexistent/m.gguf"))
  }

  @Test("chat answers lines from standard input and exits at end of input")
  func chatSession() throws {
    let process = Process()
    process.executableURL = Self.executable
    process.arguments = ["chat", "--greedy", "--max-tokens", "8"]
    let input = Pipe(), output = Pipe()
    process.standardInput = input
    process.standardOutput = output
    process.standardError = Pipe()
    try process.run()
    input.fileHandleForWriting.write(Data("Hello\nWhat is 2+2?\n/exit\n".utf8))
    try input.fileHandleForWriting.close()
    let stdout = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    #expect(process.terminationStatus == 0)
    #expect(stdout.components(separatedBy: "ai> ").count == 3)
  }

  @Test("--mode against a `hybrid serve`: the cloud answers; after SIGTERM the server exits cleanly and prefer-cloud falls back")
  func modesAgainstServe() async throws {
    let server = try await ServerProcess(executable: Self.executable, arguments: [
      "--model", "smollm2=\(ModelLocatorPath.path)", "--data", Self.scratchRegistry()])
    let url = server.baseURL.absoluteString
    let cloudArguments = ["--cloud-url", url, "--cloud-model", "smollm2", "--greedy", "--max-tokens", "6", "--json"]

    let viaCloud = try await runDetached(["generate", "--prompt", "Hi", "--mode", "prefer-cloud"] + cloudArguments)
    #expect(viaCloud.status == 0, "\(viaCloud.stderr)")
    let cloudJSON = try json(viaCloud.stdout)
    #expect(cloudJSON["source"] as? String == "cloud" && cloudJSON["modelVersion"] as? String == "smollm2")
    #expect(cloudJSON.keys.contains("fallbackReason") && cloudJSON["fallbackReason"] is NSNull)

    let onDevice = try await runDetached(["generate", "--prompt", "Hi", "--mode", "prefer-on-device"] + cloudArguments)
    #expect(try json(onDevice.stdout)["source"] as? String == "on-device")

    server.stop()   // SIGTERM: graceful shutdown
    #expect(server.process.terminationStatus == 0)

    let fallback = try await runDetached(["generate", "--prompt", "Hi", "--mode", "prefer-cloud"] + cloudArguments)
    #expect(fallback.status == 0, "\(fallback.stderr)")
    let fallbackJSON = try json(fallback.stdout)
    #expect(fallbackJSON["source"] as? String == "on-device")
    #expect((fallbackJSON["fallbackReason"] as? String)?.contains("offline") == true)
    #expect(fallback.stderr.contains("falling back"))   // logged at warning level

    let onlyCloud = try await runDetached(["generate", "--prompt", "Hi", "--mode", "cloud"] + cloudArguments)
    #expect(onlyCloud.status == 1)
    let error = try #require(try json(onlyCloud.stdout)["error"] as? [String: Any])
    #expect(error["kind"] as? String == "gemini.offline.connectionRefused")
  }

  @Test("serve shuts down gracefully on SIGINT: exit status 0")
  func serveStopsOnSIGINT() async throws {
    let server = try await ServerProcess(executable: Self.executable, arguments: [
      "--model", "smollm2=\(ModelLocatorPath.path)", "--data", Self.scratchRegistry()])
    kill(server.process.processIdentifier, SIGINT)
    server.process.waitUntilExit()
    #expect(server.process.terminationReason == .exit && server.process.terminationStatus == 0)
  }

  @Test("serve rejects bad --model specs and ports before starting")
  func serveValidation() {
    #expect(throws: (any Error).self) { try ServeCommand.parse(["--model", "bad name=/x.gguf"]) }
    #expect(throws: (any Error).self) { try ServeCommand.parse(["--port", "70000"]) }
    #expect((try? ServeCommand.parse(["--model", "/models/My Model.Q4.gguf"]).modelSpecs().first?.0) == "my-model.q4")
  }

  @Test("conflicting sampling flags are rejected before anything runs")
  func conflictingFlags() {
    #expect(throws: (any Error).self) { try GenerateCommand.parse(["--prompt", "x", "--greedy", "--top-k", "3"]) }
    #expect(throws: (any Error).self) { try GenerateCommand.parse(["--prompt", "x", "--top-p", "1.5"]) }
  }

  @Test("sampling flags map to GenerationOptions")
  func samplingFlags() throws {
    let command = try GenerateCommand.parse(["--prompt", "x", "--top-k", "5", "--seed", "3", "--temperature", "0.4",
                                             "--max-tokens", "9", "--stop", "END"])
    let options = command.conversation.sampling.generationOptions
    #expect(options.sampling == .random(top: 5, seed: 3))
    #expect(options.temperature == 0.4 && options.maximumResponseTokens == 9 && options.stopSequences == ["END"])
  }
}

/// The bootstrap's model file, as the CLI finds it.
enum ModelLocatorPath {
  static var path: String { HybridAIOnDevice.ModelLocator.defaultModelPath() }
}
