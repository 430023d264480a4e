import Foundation
import HybridAI
@testable import hybrid
import HybridAIProcess
import Testing

/// `hybrid generate --schema` and `--tools`, run as a user would, on every `--mode`.
@Suite("hybrid generate --schema / --tools", .serialized)
struct GuidedCommandTests {
  let cli = HybridCommandTests()

  static let schema: JSONValue = [
    "type": "object",
    "properties": [
      "animal": ["type": "string", "maxLength": 20],
      "legs": ["type": "integer", "minimum": 0, "maximum": 8],
      "sounds": ["type": "array", "items": ["type": "string", "maxLength": 12], "minItems": 1, "maxItems": 2],
    ],
    "required": ["animal", "legs", "sounds"], "additionalProperties": false,
  ]

  func schemaFile() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("hybrid-schema-\(UUID().uuidString).json")
    try Data(Self.schema.jsonString.utf8).write(to: url)
    return url
  }

  func validInstance(_ text: String) throws -> JSONValue {
    let value = try JSONValue(jsonString: text)
    let violations = JSONSchemaValidator(schema: Self.schema).validate(value)
    #expect(violations.isEmpty, "\(text): \(violations)")
    return value
  }

  @Test("--schema prints the JSON instance alone on stdout; --json puts it under \"json\"")
  func schemaOnDevice() async throws {
    let file = try schemaFile()
    defer { try? FileManager.default.removeItem(at: file) }
    let plain = try await cli.run(["generate", "--prompt", "Describe a dog.", "--schema", file.path, "--greedy", "--max-tokens", "80"])
    #expect(plain.status == 0, "\(plain.stderr)")
    _ = try validInstance(plain.stdout.trimmingCharacters(in: .whitespacesAndNewlines))

    let json = try await cli.run(["generate", "--prompt", "Describe a cat.", "--schema", file.path, "--greedy", "--max-tokens", "80", "--json"])
    #expect(json.status == 0, "\(json.stderr)")
    let object = try cli.json(json.stdout)
    let instance = try #require(object["json"])
    let data = try JSONSerialization.data(withJSONObject: instance)
    _ = try validInstance(String(decoding: data, as: UTF8.self))
    #expect(object["text"] is String && object["source"] as? String == "on-device")
  }

  /// `hybrid serve` with the bootstrap's SmolLM2 as `smollm2`.
  static func startServer() async throws -> ServerProcess {
    try await ServerProcess(executable: HybridCommandTests.executable,
                            arguments: ["--model", "smollm2=\(ModelLocatorPath.path)", "--data", HybridCommandTests.scratchRegistry()])
  }

  /// `hybrid generate PROMPT --schema FILE --mode MODE --json`, greedy, the cloud being `server`'s `smollm2`.
  func generate(_ prompt: String, schema: URL, mode: String, server: ServerProcess,
                maxTokens: Int) async throws -> HybridCommandTests.Run {
    try await cli.run(["generate", "--prompt", prompt, "--schema", schema.path, "--mode", mode,
                       "--cloud-url", server.baseURL.absoluteString, "--cloud-model", "smollm2",
                       "--greedy", "--max-tokens", String(maxTokens), "--json"])
  }

  @Test("--schema through `hybrid serve` (--mode cloud): the server's grammar makes the instance valid")
  func schemaThroughTheCloud() async throws {
    let file = try schemaFile()
    defer { try? FileManager.default.removeItem(at: file) }
    let server = try await Self.startServer()
    defer { server.terminate() }
    for mode in ["cloud", "prefer-cloud"] {
      let result = try await generate("Describe a bird.", schema: file, mode: mode, server: server, maxTokens: 80)
      #expect(result.status == 0, "\(result.stderr)")
      let object = try cli.json(result.stdout)
      #expect(object["source"] as? String == "cloud")
      let data = try JSONSerialization.data(withJSONObject: try #require(object["json"]))
      _ = try validInstance(String(decoding: data, as: UTF8.self))
    }
  }

  @Test("a structured answer cut by --max-tokens: exceededTokenLimit naming the limit, the text so far, exit 1 (on device and through hybrid serve)")
  func schemaAtTokenLimit() async throws {
    let file = try schemaFile()
    defer { try? FileManager.default.removeItem(at: file) }
    let server = try await Self.startServer()
    defer { server.terminate() }
    for mode in ["on-device", "cloud"] {
      let result = try await generate("Describe a horse.", schema: file, mode: mode, server: server, maxTokens: 4)
      #expect(result.status == 1, "\(mode): \(result.stdout) \(result.stderr)")
      let error = try #require(try cli.json(result.stdout)["error"] as? [String: Any], "\(mode): \(result.stdout)")
      #expect(error["kind"] as? String == "exceededTokenLimit", "\(mode): \(error)")
      #expect(error["message"] as? String == "reached the limit of 4 tokens before the structured answer was complete")
      #expect((error["partialText"] as? String)?.hasPrefix("{") == true, "\(mode): \(error)")
    }
  }

  @Test("a schema file that is not a JSON Schema: a clear error, exit status 64")
  func invalidSchemaFile() async throws {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("hybrid-bad-\(UUID().uuidString).json")
    try Data("[1, 2".utf8).write(to: url)
    defer { try? FileManager.default.removeItem(at: url) }
    let result = try await cli.run(["generate", "--prompt", "Hi", "--schema", url.path])
    #expect(result.status != 0)
    #expect(result.stderr.contains("is not a JSON Schema"))
    let missing = try await cli.run(["generate", "--prompt", "Hi", "--schema", "/nonexistent/schema.json"])
    #expect(missing.status != 0)
    #expect(missing.stderr.contains("cannot read the schema file"))
  }

  @Test("--tools --json lists the tool calls with their arguments and outputs")
  func toolsOnDevice() async throws {
    let result = try await cli.run(["generate", "--prompt", "Use the calculator to add 2 and 3.", "--tools", "--tool-choice", "required", "--max-tool-rounds", "1",
                              "--greedy", "--max-tokens", "60", "--json"])
    #expect(result.status == 0, "\(result.stderr)")
    let object = try cli.json(result.stdout)
    let calls = try #require(object["toolCalls"] as? [[String: Any]])
    #expect(!calls.isEmpty)
    for call in calls {
      #expect(["calculator", "current_time"].contains(call["name"] as? String ?? ""))
      #expect(call["arguments"] is [String: Any])
      #expect(call["output"] is String)
    }
  }
}
