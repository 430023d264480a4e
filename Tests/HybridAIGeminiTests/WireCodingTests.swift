import Foundation
import HybridAI
import HybridAIGemini
import HybridAIHTTP
import Testing

@Suite("Wire types")
struct WireCodingTests {
  private func json(_ value: some Encodable) throws -> JSONValue {
    try JSONDecoder().decode(JSONValue.self, from: Gemini.JSON.encode(value))
  }

  private func decode<T: Decodable>(_ type: T.Type, _ text: String) throws -> T {
    try Gemini.JSON.decode(type, from: Data(text.utf8))
  }

  @Test("logprobsResult: entries both ways (ids, alternatives, the sum, the mean); a stream's chunks fold whether each carries its own tokens or all so far")
  func logprobsResult() throws {
    let entries = [TokenLogProbability(token: "Hi", logProbability: -0.5, topAlternatives: [
                     TokenLogProbability(token: "Hi", logProbability: -0.5, tokenID: 7), TokenLogProbability(token: "Yo", logProbability: -1, tokenID: 9)],
                                       tokenID: 7),
                   TokenLogProbability(token: "!", logProbability: -0.25, tokenID: 3)]
    let result = LogprobsResult(entries)
    #expect(result.logProbabilitySum == -0.75 && result.averageLogProbability == -0.375)
    #expect(result.entries == entries)
    #expect(result.topCandidates?.map { $0.candidates?.count } == [2, 0])

    func chunk(_ chosen: [(String, Double)]) throws -> GenerateContentResponse {
      let result = LogprobsResult(chosenCandidates: chosen.map { .init(token: $0.0, tokenId: nil, logProbability: $0.1) },
                                  topCandidates: chosen.map { _ in .init(candidates: []) })
      var response = GenerateContentResponse.text(chosen.map(\.0).joined(), finishReason: nil, usage: nil, modelVersion: nil, responseId: nil)
      response.candidates[0].logprobsResult = try JSONValue(encoding: result)
      return response
    }
    func folded(_ chunks: [GenerateContentResponse]) throws -> [String] {
      var accumulator = GenerateContentResponse.Accumulator()
      for chunk in chunks { accumulator.add(chunk) }
      let value = try #require(accumulator.response.candidates.first?.logprobsResult)
      return try value.decode(as: LogprobsResult.self).entries.map(\.token)
    }
    #expect(try folded([chunk([("A", -1)]), chunk([("B", -2)]), chunk([("C", -3)])]) == ["A", "B", "C"], "each chunk its own")
    #expect(try folded([chunk([("A", -1)]), chunk([("A", -1), ("B", -2)])]) == ["A", "B"], "all so far each time")
  }

  @Test("inlineData reads both base64 alphabets, padded or not (Google's Python client sends the URL-safe one)")
  func base64Alphabets() {
    let bytes = Data([0xFB, 0xFF, 0xBF, 0x01])   // "+/+/AQ==" in the standard alphabet
    for encoded in ["+/+/AQ==", "-_-_AQ==", "-_-_AQ"] {
      #expect(Gemini.Blob(mimeType: "image/png", base64Data: encoded).bytes == bytes, "\(encoded)")
    }
    #expect(Gemini.Blob(mimeType: "image/png", base64Data: "not base64!").bytes == nil)
  }

  @Test("unset fields are left out")
  func omitsNil() throws {
    let request = GenerateContentRequest(contents: [.user("hi")])
    #expect(try json(request) == .object([
      "contents": .array([.object(["role": .string("user"), "parts": .array([.object(["text": .string("hi")])])])]),
    ]))
    #expect(String(decoding: try Gemini.JSON.encode(GenerationConfig(temperature: 0.5)), as: UTF8.self)
      == #"{"temperature":0.5}"#)
    #expect(!String(decoding: try Gemini.JSON.encode(GenerateContentResponse.text("x")), as: UTF8.self).contains("null"))
  }

  @Test("the GUIDE's configuration encodes with its API names")
  func guideConfig() throws {
    let config = GenerationConfig(temperature: 0.8, topP: 0.9, thinkingConfig: ThinkingConfig(thinkingLevel: .high))
    #expect(try json(config) == .object([
      "temperature": .number(0.8), "topP": .number(0.9),
      "thinkingConfig": .object(["thinkingLevel": .string("HIGH")]),
    ]))
  }

  @Test("thinking by level or by budget, never both")
  func thinkingConfig() throws {
    #expect(try json(ThinkingConfig(thinkingLevel: .minimal, includeThoughts: true))
      == .object(["thinkingLevel": .string("MINIMAL"), "includeThoughts": .bool(true)]))
    #expect(try json(ThinkingConfig(thinkingBudget: 1024))
      == .object(["thinkingBudget": .number(1024)]))
    #expect(try json(ThinkingConfig(includeThoughts: false)) == .object(["includeThoughts": .bool(false)]))
    #expect(throws: DecodingError.self) {
      try decode(ThinkingConfig.self, #"{"thinkingLevel": "LOW", "thinkingBudget": 10}"#)
    }
    let lower = try decode(ThinkingConfig.self, #"{"thinkingLevel": "high"}"#)
    #expect(lower.thinkingLevel == .high)
    #expect(lower.thinkingBudget == nil)
  }

  @Test("every generation config field round-trips")
  func generationConfigRoundTrip() throws {
    let config = GenerationConfig(
      temperature: 0.2, topP: 0.5, topK: 20, candidateCount: 1, maxOutputTokens: 64, presencePenalty: 0.1,
      frequencyPenalty: 0.2, stopSequences: ["END"], seed: 7, responseMimeType: "application/json",
      responseSchema: .object(["type": .string("OBJECT")]),
      responseJsonSchema: .object(["type": .string("object")]), responseModalities: ["TEXT"],
      responseLogprobs: true, logprobs: 2, mediaResolution: "MEDIA_RESOLUTION_LOW",
      thinkingConfig: ThinkingConfig(thinkingBudget: 0))
    let encoded = try Gemini.JSON.encode(config)
    #expect(try Gemini.JSON.decode(GenerationConfig.self, from: encoded) == config)
    let object = try JSONDecoder().decode(JSONValue.self, from: encoded)
    for key in ["temperature", "topP", "topK", "candidateCount", "maxOutputTokens", "presencePenalty",
                "frequencyPenalty", "stopSequences", "seed", "responseMimeType", "responseSchema",
                "responseJsonSchema", "responseModalities", "responseLogprobs", "logprobs", "mediaResolution",
                "thinkingConfig"] {
      #expect(object[key] != nil, "\(key)")
    }
  }

  @Test("requests decode from snake_case as the API accepts them")
  func snakeCaseRequest() throws {
    let request = try decode(GenerateContentRequest.self, """
      {"system_instruction": {"parts": [{"text": "Be brief."}]},
       "contents": [{"role": "user", "parts": [{"text": "What is this?"},
                     {"inline_data": {"mime_type": "image/png", "data": "AAAA"}}]}],
       "generation_config": {"max_output_tokens": 5, "top_k": 3,
                             "thinking_config": {"thinking_budget": 0, "include_thoughts": false}},
       "safety_settings": [{"category": "HARM_CATEGORY_HARASSMENT", "threshold": "BLOCK_NONE"}],
       "unknown_member": 1}
      """)
    #expect(request.systemInstruction?.text == "Be brief.")
    #expect(request.contents.first?.parts.last?.data == .inlineData(Gemini.Blob(mimeType: "image/png", base64Data: "AAAA")))
    #expect(request.generationConfig?.maxOutputTokens == 5)
    #expect(request.generationConfig?.topK == 3)
    #expect(request.generationConfig?.thinkingConfig?.thinkingBudget == 0)
    #expect(request.generationConfig?.thinkingConfig?.includeThoughts == false)
    #expect(request.safetySettings == [SafetySetting(harmCategory: .harassment, threshold: .blockNone)])
  }

  @Test("parts keep members they do not know, and every data kind round-trips")
  func partsRoundTrip() throws {
    let text = """
      {"role": "model", "parts": [
        {"text": "thinking…", "thought": true},
        {"functionCall": {"id": "c1", "name": "now", "args": {"tz": "UTC"}}, "thoughtSignature": "c2ln"},
        {"functionResponse": {"id": "c1", "name": "now", "response": {"output": "noon"}}},
        {"inlineData": {"mimeType": "image/png", "data": "iVBO"}},
        {"fileData": {"mimeType": "application/pdf", "fileUri": "https://example.com/a.pdf"}},
        {"executableCode": {"language": "PYTHON", "code": "print(1)"}},
        {"codeExecutionResult": {"outcome": "OUTCOME_OK", "output": "1"}},
        {"futurePart": {"x": 1}, "futureFlag": true}
      ]}
      """
    let content = try decode(Gemini.Content.self, text)
    #expect(content.parts.map { $0.data?.kind } == ["text", "functionCall", "functionResponse", "inlineData", "fileData",
                                                    "executableCode", "codeExecutionResult", nil])
    #expect(content.parts[7].otherFields == ["futurePart": .object(["x": .number(1)]), "futureFlag": .bool(true)])
    #expect(content.text == "")
    #expect(content.thoughtText == "thinking…")
    #expect(try json(content) == JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)))
  }

  @Test("the Google error envelope, with its ErrorInfo reason and RetryInfo delay")
  func errorEnvelope() throws {
    let envelope = try decode(GoogleErrorEnvelope.self, """
      {"error": {"code": 429, "message": "Quota exceeded", "status": "RESOURCE_EXHAUSTED", "details": [
        {"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "RATE_LIMIT_EXCEEDED"},
        {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "37s"}]}}
      """)
    #expect(envelope.error.code == 429)
    #expect(envelope.error.reason == "RATE_LIMIT_EXCEEDED")
    #expect(envelope.error.retryDelay == .seconds(37))
    let round = try Gemini.JSON.decode(GoogleErrorEnvelope.self, from: Gemini.JSON.encode(envelope))
    #expect(round == envelope)
  }

  @Test("a server's chunk as a server-sent event")
  func serverSentEventChunk() throws {
    let chunk = GenerateContentResponse.text("Hi", finishReason: .stop,
                                             usage: UsageMetadata(Usage(promptTokens: 3, outputTokens: 1)),
                                             modelVersion: "SmolLM2", responseId: "r1")
    let event = try chunk.serverSentEvent()
    #expect(event.hasPrefix("data: {"))
    #expect(event.hasSuffix("}\r\n\r\n"))
    var parser = ServerSentEventParser()
    let parsed = parser.parse(Array(event.utf8))
    #expect(parsed.count == 1)
    #expect(try Gemini.JSON.decode(GenerateContentResponse.self, from: Data(parsed[0].data.utf8)) == chunk)
  }

  @Test("a GenerationConfig rides in GenerationOptions")
  func modelSpecificOptions() throws {
    let config = GenerationConfig(temperature: 0.8, topP: 0.9, thinkingConfig: ThinkingConfig(thinkingLevel: .high))
    #expect(GenerationConfig.optionsKey == "gemini")
    let gemini = GenerationOptions.gemini(config)
    #expect(gemini[GenerationConfig.self] == config)
    #expect(gemini.appliesTo == .cloud)
    let hybrid = GenerationOptions.hybrid(
      gemini: config, onDevice: GenerationOptions(sampling: .random(probabilityThreshold: 0.9), temperature: 0.3))
    #expect(hybrid[GenerationConfig.self] == config)
    #expect(hybrid.appliesTo == .onDevice)
    #expect(hybrid.temperature == 0.3)
    // Options survive the transcript's JSON form.
    let decoded = try JSONDecoder().decode(GenerationOptions.self, from: JSONEncoder().encode(hybrid))
    #expect(decoded[GenerationConfig.self] == config)
  }
}
