import Foundation
import HybridAI
import HybridAIOnDevice
import HybridAIOpenAI
import HybridAITestSupport
import Testing

/// `OpenAIModel` against real OpenAI-compatible servers: `hybrid serve`'s `/v1beta/openai/` (real
/// model, and scripted for a tool loop) and llama.cpp's own `llama-server` (a third party, built
/// by the bootstrap from the pinned source).
@Suite("OpenAIModel against hybrid serve and llama-server", .serialized)
struct OpenAIModelServingTests {
  static let greedy = GenerationOptions(sampling: .greedy, maximumResponseTokens: 8)

  static func openAIModel(_ server: RunningTestServer, name: String = RunningTestServer.modelName,
                          apiKey: String? = nil) -> OpenAIModel {
    OpenAIModel(name: name, apiKey: apiKey,
                baseURL: URL(string: server.baseURL.absoluteString + OpenAI.servedPathPrefix)!,
                configuration: .init(readTimeout: RunningTestServer.patientReadTimeout, retryPolicy: .none))
  }

  @Test("hybrid serve: the cloud answer is the on-device model's own greedy answer, usage and all")
  func hybridServeAnswersLikeTheDevice() async throws {
    let server = try await RunningTestServer.start()
    defer { Task { await server.stop() } }
    let cloud = try await GenerativeModelSession(model: Self.openAIModel(server), instructions: "Be brief.")
      .respond(to: "Name a colour.", options: Self.greedy)
    let device = SystemLanguageModel(modelPath: RunningTestServer.modelPath, configuration: .init(contextSize: 1024))
    let local = try await GenerativeModelSession(model: device, instructions: "Be brief.")
      .respond(to: "Name a colour.", options: Self.greedy)
    #expect(cloud.rawResponse.source == .cloud && cloud.rawResponse.modelVersion == RunningTestServer.modelName)
    #expect(!cloud.content.isEmpty)
    #expect(cloud.content == local.content)
    #expect(cloud.usage.promptTokens == local.usage.promptTokens && cloud.usage.outputTokens == local.usage.outputTokens)
    #expect(cloud.rawResponse.logProbabilities == nil, "none unless asked")

    // Log probabilities both ways: asked through OpenAIModel (logprobs, top_logprobs), served from
    // the on-device model's logits, parsed back into the same entries the device gives directly.
    var asking = Self.greedy
    asking.logProbabilities = 2
    let cloudEntries = try #require(try await GenerativeModelSession(model: Self.openAIModel(server), instructions: "Be brief.")
      .respond(to: "Name a colour.", options: asking).rawResponse.logProbabilities)
    let localEntries = try #require(try await GenerativeModelSession(model: device, instructions: "Be brief.")
      .respond(to: "Name a colour.", options: asking).rawResponse.logProbabilities)
    #expect(cloudEntries.count == cloud.usage.outputTokens && !cloudEntries.isEmpty)
    #expect(cloudEntries.map(\.bytes) == localEntries.map(\.bytes))
    #expect(cloudEntries.map { $0.topAlternatives.map(\.token) } == localEntries.map { $0.topAlternatives.map(\.token) })
    #expect(zip(cloudEntries, localEntries).allSatisfy { abs($0.logProbability - $1.logProbability) < 1e-2 },
            "\(cloudEntries.map(\.logProbability)) vs \(localEntries.map(\.logProbability))")
  }

  @Test("hybrid serve: an unknown model and a wrong key are typed errors, not offline")
  func hybridServeErrors() async throws {
    let server = try await RunningTestServer.start(apiKeys: ["right-key"])
    defer { Task { await server.stop() } }
    let unknown = await GenerationOutcome.collect(Self.openAIModel(server, name: "nope", apiKey: "right-key")
      .generate(GenerationRequest(transcript: Transcript(entries: [.prompt(.init(text: "Hi"))]), options: Self.greedy)))
    guard case .unknownModel(let api)? = unknown.error as? OpenAIError else {
      Issue.record("expected unknownModel, got \(String(describing: unknown.error))")
      return
    }
    #expect(api.error?.code == "model_not_found")
    let wrongKey = await GenerationOutcome.collect(Self.openAIModel(server, apiKey: "wrong")
      .generate(GenerationRequest(transcript: Transcript(entries: [.prompt(.init(text: "Hi"))]), options: Self.greedy)))
    guard case .invalidAPIKey? = wrongKey.error as? OpenAIError else {
      Issue.record("expected invalidAPIKey, got \(String(describing: wrongKey.error))")
      return
    }
  }

  @Test("hybrid serve (scripted): a session's tool loop over the OpenAI API — the call, its id and the tool's output go round")
  func toolLoopThroughHybridServe() async throws {
    let call = Transcript.ToolCall(id: "call_7", toolName: "get_weather", arguments: try GeneratedContent(json: #"{"city":"Paris"}"#))
    let server = try await ScriptedServer.start(.rounds([.toolCalls([call]), .text("Sunny in Paris.")]))
    defer { Task { await server.stop() } }
    let tool = RecordingTool(name: "get_weather", parameters: GenerationSchema(jsonSchema: [
      "type": "object", "properties": ["city": ["type": "string"]], "required": ["city"]])) { _ in ToolOutput("sunny, 24 °C") }
    let cloud = OpenAIModel(name: ScriptedServer.modelName, apiKey: nil,
                            baseURL: URL(string: server.baseURL.absoluteString + OpenAI.servedPathPrefix)!)
    let response = try await GenerativeModelSession(model: cloud, tools: [tool]).respond(to: "Weather in Paris?")
    #expect(response.content == "Sunny in Paris.")
    #expect(tool.calls.map(\.jsonValue) == [["city": "Paris"]])
    let second = try #require(server.model.requests.last)
    guard case .toolOutput(let output)? = second.transcript.last else {
      Issue.record("the second request does not end with the tool's output: \(second.transcript)")
      return
    }
    #expect(output.callID == "call_7" && output.segments.text == "sunny, 24 °C")
    #expect(second.tools.map(\.name) == ["get_weather"])
  }

  @Test("llama-server: streamed greedy answer with usage equals its unary answer; JSON-schema output; a typed 400; offline after it stops")
  func llamaServer() async throws {
    let llama = try await RunningLlamaServer.start()
    let model = llama.openAIModel()
    let prompt = GenerationRequest(transcript: Transcript(entries: [.prompt(.init(text: "Name a colour."))]), options: Self.greedy)
    let streamed = await GenerationOutcome.collect(model.generate(prompt))
    #expect(streamed.error == nil, "\(String(describing: streamed.error))")
    let raw = try #require(streamed.raw)
    #expect(!streamed.text.isEmpty && streamed.deltas.count > 1)
    #expect(raw.usage.promptTokens > 0 && raw.usage.outputTokens > 0 && raw.usage.outputTokens <= 8)
    #expect([.stop, .maxTokens].contains(raw.finishReason))
    #expect(raw.modelVersion.contains("SmolLM2"), "llama-server names its model by file: \(raw.modelVersion)")

    let unary = try await model.client.chatCompletion(ChatCompletionRequest(prompt, model: model.name))
    #expect(unary.choices.first?.message.content == .text(streamed.text), "greedy: the stream adds up to the unary answer")
    #expect(unary.usage?.completionTokens == raw.usage.outputTokens)

    let count = ResponseFormat(name: "count", schema: GenerationSchema(jsonSchema: [
      "type": "object", "properties": ["n": ["type": "integer"]], "required": ["n"], "additionalProperties": false]))
    let structured = await GenerationOutcome.collect(model.generate(GenerationRequest(
      transcript: Transcript(entries: [.prompt(.init(text: "Give a count."))]),
      options: GenerationOptions(sampling: .greedy, maximumResponseTokens: 24), responseFormat: count)))
    #expect(structured.error == nil, "\(String(describing: structured.error))")
    let value = try GeneratedContent(json: structured.text).jsonValue
    guard case .number? = value["n"] else {
      Issue.record("not {\"n\": integer}: \(structured.text)")
      return
    }

    // A schema llama-server cannot compile: its 400 in OpenAI's envelope, typed.
    let bogus = ResponseFormat(name: "bogus", schema: GenerationSchema(jsonSchema: ["type": "bogus"]))
    let rejected = await GenerationOutcome.collect(model.generate(GenerationRequest(
      transcript: prompt.transcript, options: Self.greedy, responseFormat: bogus)))
    guard case .invalidRequest(let api)? = rejected.error as? OpenAIError else {
      Issue.record("expected invalidRequest, got \(String(describing: rejected.error))")
      return
    }
    #expect(api.httpStatus == 400 && api.error?.type == "invalid_request_error" && api.message.contains("bogus"))

    await llama.stop()
    let device = ScriptedLanguageModel(identifier: "device") { _, _ in [.textDelta("from the device")] }
    let fallback = try await GenerativeModelSession(model: .hybrid(primary: model, secondary: device)).respond(to: "Hi")
    #expect(fallback.content == "from the device")
    #expect(fallback.rawResponse.fallback?.reason == .offline(.connectionRefused))
  }
}
