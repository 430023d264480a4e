import Foundation
import HybridAIProcess
import HybridAITestSupport
import Testing

/// OpenAI's official Python client (`openai`, pinned, installed by scripts/bootstrap into
/// .deps/venv) against `hybrid serve`'s `/v1beta/openai/` (and `/v1/`) with the real on-device
/// model: what an OpenAI user would run, unchanged but for the base URL.
@Suite("openai client conformance")
struct OpenAIClientConformanceTests {
  @Test("models, unary, streaming with usage, a tools round trip, a streamed tool call, parse() with a pydantic model, json_object, logprobs unary and streamed, n choices unary and streamed, typed errors (key, model, n, top_logprobs, a cut-off tool call); the same at base URL /v1, whose models google-genai lists too")
  func officialClient() async throws {
    let python = TestRepository.python
    try #require(FileManager.default.isExecutableFile(atPath: python.path),
                 "the API clients venv is missing at \(python.path): run scripts/bootstrap (make test does)")
    let script = TestRepository.file("Tests/HybridAIServerTests/Conformance/openai_conformance.py")
    let server = try await RunningTestServer.start(apiKeys: ["conformance-key"])
    defer { Task { await server.stop() } }

    let run = try await ChildProcess.run(python, [script.path, server.baseURL.absoluteString, RunningTestServer.modelName,
                                                  "conformance-key"])
    #expect(run.succeeded, "\(run.standardError)")
    let observed = try #require(JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any],
                                "script output: \(run.output) \(run.standardError)")
    /// One call of the script; a failed `#require` ends only its own section.
    func section(_ key: String, _ checks: ([String: Any]) throws -> Void) {
      do {
        let value = try #require(observed[key] as? [String: Any], "\(key) missing")
        try #require(value["exception"] == nil && value["api_error"] == nil,
                     "\(key) failed: \(value["api_error"] ?? value["traceback"] ?? "")")
        try checks(value)
      } catch {
        Issue.record("\(key): \(error)")
      }
    }
    func apiError(_ key: String) throws -> [String: Any] {
      try #require((observed[key] as? [String: Any])?["api_error"] as? [String: Any], "\(key) must fail: \(observed[key] ?? "")")
    }

    section("models") { models in
      #expect(models["ids"] as? [String] == [RunningTestServer.modelName])
      #expect(models["retrieved"] as? String == RunningTestServer.modelName)
    }
    var unaryText: String?
    section("unary") { unary in
      unaryText = unary["text"] as? String
      #expect(unaryText?.isEmpty == false)
      #expect(unary["role"] as? String == "assistant" && unary["object"] as? String == "chat.completion")
      #expect(unary["model"] as? String == RunningTestServer.modelName)
      #expect(["stop", "length"].contains(unary["finish_reason"] as? String ?? ""))
      let usage = try #require(unary["usage"] as? [String: Int])
      #expect(usage["total"] == usage["prompt"]! + usage["completion"]! && usage["prompt"]! > 0)
    }
    section("stream") { stream in
      #expect(stream["text"] as? String == unaryText, "greedy: the stream adds up to the unary answer")
      #expect((stream["chunks"] as? Int ?? 0) > 2)
      #expect(["stop", "length"].contains(stream["finish_reason"] as? String ?? ""))
      #expect(((stream["usage"] as? [String: Int])?["completion"] ?? 0) > 0)
    }
    section("tools") { tools in
      #expect(tools["finish_reason"] as? String == "tool_calls")
      #expect(tools["name"] as? String == "get_weather")
      #expect((tools["arguments"] as? [String: Any])?["city"] is String, "arguments valid against the schema")
      #expect((tools["answer"] as? String)?.isEmpty == false, "the model answers after the tool's result")
      #expect(tools["answer_finish_reason"] as? String != "tool_calls")
    }
    section("streamed_tool_call") { call in
      // The small model may repeat its call; every one is whole, with its own id, at its own index.
      let names = try #require(call["names"] as? [String])
      #expect(!names.isEmpty && names.allSatisfy { $0 == "get_weather" })
      #expect(Set((call["ids"] as? [String]) ?? []).count == names.count)
      #expect((call["arguments"] as? [[String: Any]])?.allSatisfy { $0["city"] is String } == true)
      #expect(call["finish_reason"] as? String == "tool_calls")
    }
    section("structured") { guide in
      // parse() validated the answer against the pydantic model's schema already.
      #expect(guide["city"] is String)
      #expect((1...3).contains((guide["sights"] as? [String])?.count ?? 0))
    }
    section("json_object") { object in
      #expect(object["object"] is [String: Any])
    }
    section("at_v1") { v1 in
      // Base URL /v1/: the same API and answers; its model routes serve Gemini's v1 client as well.
      #expect(v1["ids"] as? [String] == [RunningTestServer.modelName])
      #expect(v1["retrieved"] as? String == RunningTestServer.modelName && v1["owned_by"] as? String == "hybrid-serve")
      #expect(v1["text"] as? String == unaryText, "greedy: the same answer as under /v1beta/openai/")
      #expect(v1["streamed"] as? String == unaryText)
      #expect(v1["gemini_names"] as? [String] == ["models/\(RunningTestServer.modelName)"])
      #expect((v1["gemini_limit"] as? Int ?? 0) > 0)
    }

    let wrongKey = try apiError("wrong_key")
    #expect(wrongKey["class"] as? String == "AuthenticationError" && wrongKey["status"] as? Int == 401)
    #expect(wrongKey["code"] as? String == "invalid_api_key")
    let unknown = try apiError("unknown_model")
    #expect(unknown["class"] as? String == "NotFoundError" && unknown["code"] as? String == "model_not_found")
    // The same under /v1/models, which the Gemini API shares (it answered in Google's envelope, a 400).
    let listWrongKey = try apiError("v1_models_wrong_key")
    #expect(listWrongKey["class"] as? String == "AuthenticationError" && listWrongKey["code"] as? String == "invalid_api_key",
            "\(listWrongKey)")
    let retrieveUnknown = try apiError("v1_model_unknown")
    #expect(retrieveUnknown["class"] as? String == "NotFoundError" && retrieveUnknown["code"] as? String == "model_not_found",
            "\(retrieveUnknown)")
    // A tool call the token limit cuts off is the client's to fix: 400 naming the limit, not a 500.
    let cutShort = try apiError("cut_short")
    #expect(cutShort["class"] as? String == "BadRequestError" && cutShort["param"] as? String == "max_completion_tokens",
            "\(cutShort)")
    // n: 2 — two choices side by side: the first is the answer n: 1 gives with the same seed, the
    // second another (its seed moved by one); usage counts the prompt once and both answers; the
    // stream interleaves them by index; greedy choices are alike.
    section("two_choices") { choices in
      let texts = try #require(choices["texts"] as? [String])
      #expect(choices["indexes"] as? [Int] == [0, 1] && texts.count == 2, "\(choices)")
      #expect(texts[0] == choices["alone"] as? String && texts[0] != texts[1], "\(texts)")
      #expect(choices["prompt_tokens"] as? Int == choices["alone_prompt_tokens"] as? Int)
      #expect((choices["completion_tokens"] as? Int ?? 0) > (choices["alone_tokens"] as? Int ?? 0))
      #expect(choices["streamed"] as? [String] == texts && choices["stream_finishes"] as? [String] == ["length", "length"], "\(choices)")
      let greedy = try #require(choices["greedy"] as? [String])
      #expect(greedy.count == 2 && greedy[0] == greedy[1])
    }
    let tooMany = try apiError("too_many_choices")
    #expect(tooMany["class"] as? String == "BadRequestError" && tooMany["param"] as? String == "n", "\(tooMany)")
    // parallel_tool_calls: false — one call, where the grammar otherwise lets a small model repeat it.
    section("one_call") { oneCall in
      #expect(oneCall["calls"] as? Int == 1 && oneCall["finish_reason"] as? String == "tool_calls", "\(oneCall)")
    }
    // logprobs: each token of the greedy answer with its log probability, the 3 most likely tokens
    // (the chosen one first), the same tokens and values streamed (they come with the last chunk).
    section("logprobs") { logprobs in
      let tokens = try #require(logprobs["tokens"] as? [String]), values = try #require(logprobs["logprobs"] as? [Double])
      let top = try #require(logprobs["top_tokens"] as? [[String]]), topValues = try #require(logprobs["top_logprobs"] as? [[Double]])
      #expect(!tokens.isEmpty && tokens.joined() == logprobs["text"] as? String && logprobs["bytes"] as? String == logprobs["text"] as? String,
              "\(logprobs)")
      #expect(values.count == tokens.count && values.allSatisfy { $0 <= 0 })
      #expect(top.count == tokens.count && top.allSatisfy { $0.count == 3 } && zip(top, tokens).allSatisfy { $0.first == $1 }, "\(top)")
      #expect(topValues.allSatisfy { $0 == $0.sorted(by: >) })
      #expect(logprobs["streamed_text"] as? String == logprobs["text"] as? String)
      #expect(logprobs["streamed_tokens"] as? [String] == tokens)
      let streamedValues = try #require(logprobs["streamed_logprobs"] as? [Double])
      #expect(streamedValues.count == values.count && zip(streamedValues, values).allSatisfy { abs($0 - $1) < 1e-2 }, "\(streamedValues) \(values)")
      #expect((logprobs["streamed_top"] as? [Int])?.allSatisfy { $0 == 0 } == true, "no top_logprobs asked when streaming")
    }
    let tooManyTop = try apiError("too_many_top_logprobs")
    #expect(tooManyTop["class"] as? String == "BadRequestError" && tooManyTop["param"] as? String == "top_logprobs", "\(tooManyTop)")
    let badTool = try apiError("bad_tool_schema")
    #expect(badTool["param"] as? String == "tools" && (badTool["message"] as? String)?.contains("tool f") == true, "\(badTool)")
    let tooLong = try apiError("too_long")
    #expect(tooLong["code"] as? String == "context_length_exceeded" && tooLong["param"] as? String == "messages", "\(tooLong)")
  }
}
