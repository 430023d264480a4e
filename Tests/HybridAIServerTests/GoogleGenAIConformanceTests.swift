import Foundation
import HybridAIProcess
import HybridAITestSupport
import Testing

/// Google's official Python client (`google-genai`, pinned, installed by scripts/bootstrap into
/// .deps/venv) against `hybrid serve`: what a Gemini user would run, unchanged but for the URL.
@Suite("google-genai conformance")
struct GoogleGenAIConformanceTests {
  @Test("generate, stream, system instruction, chat history, count tokens, log probabilities, two candidates, models, key and model errors")
  func officialClient() async throws {
    let python = TestRepository.python
    try #require(FileManager.default.isExecutableFile(atPath: python.path),
                 "the google-genai venv is missing at \(python.path): run scripts/bootstrap (make test does)")
    let script = TestRepository.file("Tests/HybridAIServerTests/Conformance/genai_conformance.py")
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

    // The system instruction reaches the model: the prompt grows (it replaces SmolLM2's shorter default one).
    let system = try object("system_instruction")
    #expect(((system["usage"] as? [String: Int])?["prompt"] ?? 0) > usage["prompt"]!)

    // Chat history goes along: each turn's prompt holds all earlier turns.
    let chat = try object("chat")
    let first = try #require((chat["first"] as? [String: Any])?["usage"] as? [String: Int])
    let second = try #require((chat["second"] as? [String: Any])?["usage"] as? [String: Int])
    #expect(second["prompt"]! > first["prompt"]! + first["candidates"]!)
    #expect(chat["history_length"] as? Int == 6)
    #expect((chat["history_tokens"] as? Int ?? 0) > second["prompt"]!, "the whole history, its last answer included")

    // responseLogprobs: each token of the greedy answer with its log probability and id, the two
    // most likely tokens at each step (the chosen one first), avgLogprobs their mean; streamed,
    // the last chunk holds the same tokens.
    let logprobs = try object("logprobs")
    let chosen = try #require(logprobs["chosen"] as? [String]), values = try #require(logprobs["chosen_logprobs"] as? [Double])
    #expect(!chosen.isEmpty && chosen.joined() == logprobs["text"] as? String, "\(logprobs)")
    #expect(values.count == chosen.count && values.allSatisfy { $0 <= 0 })
    let average = try #require(logprobs["avg_logprobs"] as? Double)
    #expect(abs(average - values.reduce(0, +) / Double(values.count)) < 1e-6)
    let top = try #require(logprobs["top"] as? [[String]]), topIDs = try #require(logprobs["top_ids"] as? [[Int]])
    #expect(top.count == chosen.count && top.allSatisfy { $0.count == 2 } && zip(top, chosen).allSatisfy { $0.first == $1 }, "\(top)")
    #expect(zip(topIDs, try #require(logprobs["chosen_ids"] as? [Int])).allSatisfy { $0.first == $1 }, "token ids agree")
    #expect(logprobs["streamed_text"] as? String == logprobs["text"] as? String)
    #expect(logprobs["streamed_chosen"] as? [String] == chosen)
    let unasked = try #require((try object("logprobs_without_response_logprobs"))["api_error"] as? [String: Any],
                               "logprobs without responseLogprobs must fail")
    #expect(unasked["code"] as? Int == 400 && (unasked["message"] as? String)?.contains("responseLogprobs") == true, "\(unasked)")

    // candidateCount 2: the first candidate is the one-candidate answer with the same seed, the
    // second another; the usage counts the prompt once and both; streamed, the candidates
    // interleave by index and a last chunk carries the usage.
    let candidates = try object("two_candidates")
    let texts = try #require(candidates["texts"] as? [String], "\(candidates)")
    #expect(candidates["indexes"] as? [Int] == [0, 1] && texts.count == 2)
    #expect(texts[0] == candidates["alone"] as? String && texts[0] != texts[1], "\(texts)")
    #expect(candidates["prompt_tokens"] as? Int == candidates["alone_prompt_tokens"] as? Int)
    #expect((candidates["candidates_tokens"] as? Int ?? 0) > (candidates["alone_tokens"] as? Int ?? 0))
    #expect(candidates["streamed"] as? [String] == texts, "\(candidates)")
    #expect(candidates["stream_candidates_tokens"] as? Int == candidates["candidates_tokens"] as? Int)

    let models = try object("models")
    #expect(models["names"] as? [String] == ["models/\(RunningTestServer.modelName)"])
    #expect(models["input_token_limit"] as? Int == 1024)

    // Errors arrive as the client's APIError with Google's codes and statuses.
    let wrongKey = try #require((try object("wrong_key"))["api_error"] as? [String: Any], "a wrong key must fail")
    #expect(wrongKey["code"] as? Int == 400 && wrongKey["status"] as? String == "INVALID_ARGUMENT")
    let unknown = try #require((try object("unknown_model"))["api_error"] as? [String: Any], "an unknown model must fail")
    #expect(unknown["code"] as? Int == 404 && unknown["status"] as? String == "NOT_FOUND")
  }

  /// Function calling and structured output with the official client. Depends on the on-device
  /// model honouring tools, tool choice and response schemas (constrained decoding).
  @Test("automatic function calling, a streamed function call, response_schema and response_json_schema")
  func officialClientToolsAndSchemas() async throws {
    let python = TestRepository.python
    try #require(FileManager.default.isExecutableFile(atPath: python.path),
                 "the google-genai venv is missing at \(python.path): run scripts/bootstrap (make test does)")
    let script = TestRepository.file("Tests/HybridAIServerTests/Conformance/genai_tools.py")
    let server = try await RunningTestServer.start(apiKeys: ["conformance-key"])
    defer { Task { await server.stop() } }

    let output = try await Self.run(python, [script.path, server.baseURL.absoluteString, RunningTestServer.modelName, "conformance-key"])
    let observed = try #require(JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any], "script output: \(output)")
    /// Checks one call of the script; a failed `#require` ends only its own section.
    func section(_ key: String, _ checks: ([String: Any]) throws -> Void) {
      do {
        let value = try #require(observed[key] as? [String: Any], "\(key) missing")
        #expect(value["exception"] == nil, "\(key) raised: \(value["traceback"] ?? "")")
        #expect(value["api_error"] == nil, "\(key) failed: \(value["api_error"] ?? "")")
        try checks(value)
      } catch is ExpectationFailedError {
        // already recorded by the failed #require
      } catch {
        Issue.record("\(key): \(error)")
      }
    }

    // The client's loop: the model calls get_weather, the client runs it and sends the result back.
    section("automatic_function_calling") { automatic in
      let cities = try #require(automatic["calls"] as? [String])
      #expect(!cities.isEmpty && cities.allSatisfy { !$0.isEmpty }, "get_weather ran with \(cities)")
      let history = try #require(automatic["history"] as? [[String: Any]])
      #expect(history.map { $0["role"] as? String } == ["user", "model", "user", "model"])
      // One function response per call (the model may call more than once in its turn); mode ANY
      // makes the model's last answer calls too.
      #expect(history.prefix(3).map { $0["parts"] as? [String] } == [
        ["text"], Array(repeating: "function_call", count: cities.count),
        Array(repeating: "function_response", count: cities.count),
      ])
      #expect((history.last?["parts"] as? [String])?.contains("function_call") == true)
      #expect((automatic["function_responses"] as? [[String: Any]])?.first?["result"] as? String
              == "Sunny and 21 degrees in \(cities.first ?? "").")
      #expect(automatic["finish_reason"] as? String == "FinishReason.STOP")
      // The second request carried the call (with the id the server gave it) and its response (the
      // client sends no id back: the server matches it to the call by name).
      let second = try #require(server.log.requests.withLock { requests in
        requests.first { $0.contents.contains { $0.parts.contains { if case .functionResponse = $0.data { true } else { false } } } }
      })
      #expect(second.contents.count == 3)
      #expect(second.contents[2].parts.count == cities.count)
      if case .functionCall(let call)? = second.contents[1].parts.first?.data,
         case .functionResponse(let response)? = second.contents[2].parts.first?.data {
        #expect(call.name == "get_weather" && response.name == "get_weather")
        #expect(call.id?.isEmpty == false)
        #expect(response.id == nil || response.id == call.id)
      } else {
        Issue.record("the second request lacks the function call and response: \(second.contents)")
      }
    }

    // A function call over SSE, arguments following the OpenAPI schema.
    section("streamed_function_call") { streamed in
      let calls = try #require(streamed["calls"] as? [[String: Any]])
      #expect(calls.count == 1)
      #expect(calls.first?["name"] as? String == "set_alarm")
      let hour = try #require((calls.first?["args"] as? [String: Any])?["hour"] as? Int)
      #expect((0...23).contains(hour))
      #expect((calls.first?["id"] as? String)?.isEmpty == false)
      #expect(streamed["finish_reason"] as? String == "FinishReason.STOP")
    }

    // Structured output: valid JSON of the schema, parsed by the client.
    section("response_schema_pydantic") { pydantic in
      let city = try #require(pydantic["parsed"] as? [String: Any], "not parsed: \(pydantic["text"] ?? "")")
      #expect((city["name"] as? String)?.isEmpty == false)
      #expect(city["country"] is String)
    }
    section("response_json_schema_dict") { dict in
      let json = try #require(dict["json"] as? [String: Any])
      #expect(["red", "green", "blue"].contains(json["colour"] as? String ?? ""))
      #expect(json["count"] is Int)
    }
  }

  /// Runs a process to completion off the cooperative pool; returns its standard output.
  static func run(_ executable: URL, _ arguments: [String]) async throws -> String {
    try await ChildProcess.run(executable, arguments).output
  }
}
