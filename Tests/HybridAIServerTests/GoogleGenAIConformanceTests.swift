import Foundation
import Testing

/// Google's official Python client (`google-genai`, pinned, installed by scripts/bootstrap into
/// .deps/venv) against `hybrid serve`: what a Gemini user would run, unchanged but for the URL.
@Suite("google-genai conformance")
struct GoogleGenAIConformanceTests {
  static var repositoryRoot: URL {
    URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
  }

  @Test("generate, stream, system instruction, chat history, count tokens, models, key and model errors")
  func officialClient() async throws {
    let python = Self.repositoryRoot.appendingPathComponent(".deps/venv/bin/python")
    try #require(FileManager.default.isExecutableFile(atPath: python.path),
                 "the google-genai venv is missing at \(python.path): run scripts/bootstrap (make test does)")
    let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Conformance/genai_conformance.py")
    let server = try await RunningTestServer.start(apiKeys: ["conformance-key"])
    defer { Task { await server.stop() } }

    let output = try await Self.run(python, [script.path, server.baseURL.absoluteString, RunningTestServer.modelName, "conformance-key"])
    let observed = try #require(JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any], "script output: \(output)")
    func object(_ key: String) throws -> [String: Any] {
      let value = try #require(observed[key] as? [String: Any], "\(key) missing")
      #expect(value["exception"] == nil, "\(key) raised: \(value["traceback"] ?? "")")
      return value
    }

    let generate = try object("generate")
    let text = try #require(generate["text"] as? String)
    #expect(!text.isEmpty)
    #expect(generate["model_version"] as? String == RunningTestServer.modelName)
    let usage = try #require(generate["usage"] as? [String: Int])
    #expect(usage["total"] == usage["prompt"]! + usage["candidates"]!)

    // The stream's text adds up to the unary greedy answer, in more than one chunk.
    let stream = try object("stream")
    #expect(stream["text"] as? String == text)
    #expect((stream["chunks"] as? Int ?? 0) > 1)
    #expect((stream["usage"] as? [String: Int])?["candidates"] == usage["candidates"])

    // countTokens counts the same rendered prompt as generate's usage.
    #expect(try object("count_tokens")["total_tokens"] as? Int == usage["prompt"])

    // The system instruction reaches the model: the prompt grows by its tokens.
    let system = try object("system_instruction")
    #expect(((system["usage"] as? [String: Int])?["prompt"] ?? 0) > usage["prompt"]!)

    // Chat history goes along: each turn's prompt holds all earlier turns.
    let chat = try object("chat")
    let first = try #require((chat["first"] as? [String: Any])?["usage"] as? [String: Int])
    let second = try #require((chat["second"] as? [String: Any])?["usage"] as? [String: Int])
    #expect(second["prompt"]! > first["prompt"]! + first["candidates"]!)
    #expect(chat["history_length"] as? Int == 6)

    let models = try object("models")
    #expect(models["names"] as? [String] == ["models/\(RunningTestServer.modelName)"])
    #expect(models["input_token_limit"] as? Int == 1024)

    // Errors arrive as the client's APIError with Google's codes and statuses.
    let wrongKey = try #require((try object("wrong_key"))["api_error"] as? [String: Any], "a wrong key must fail")
    #expect(wrongKey["code"] as? Int == 400 && wrongKey["status"] as? String == "INVALID_ARGUMENT")
    let unknown = try #require((try object("unknown_model"))["api_error"] as? [String: Any], "an unknown model must fail")
    #expect(unknown["code"] as? Int == 404 && unknown["status"] as? String == "NOT_FOUND")
  }

  /// Runs a process to completion off the cooperative pool; returns its standard output.
  static func run(_ executable: URL, _ arguments: [String]) async throws -> String {
    try await withCheckedThrowingContinuation { continuation in
      let process = Process()
      process.executableURL = executable
      process.arguments = arguments
      let output = Pipe()
      process.standardOutput = output
      process.standardError = FileHandle.standardError
      do {
        try process.run()
      } catch {
        continuation.resume(throwing: error)
        return
      }
      Thread.detachNewThread {
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        continuation.resume(returning: String(decoding: data, as: UTF8.self))
      }
    }
  }
}
