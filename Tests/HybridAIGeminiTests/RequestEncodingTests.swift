import Foundation
import HybridAI
import HybridAIFileStorage
import HybridAIGemini
import HybridAIServerTestSupport
import HybridAITestSupport
import Testing

/// What GeminiModel sends: the request body built from a transcript and options, and the headers.
@Suite("Requests GeminiModel sends")
struct RequestEncodingTests {
  private static let okStream = TestHTTPServer.Reply.sse([
    #"{"candidates": [{"content": {"role": "model", "parts": [{"text": "ok"}]}, "finishReason": "STOP"}]}"#,
  ])

  /// Sends `request` to a server answering "ok" and returns the body and the request it received.
  private func sent(_ request: GenerationRequest, apiKey: String? = "test-key") async throws
    -> (body: JSONValue, request: TestHTTPServer.Request) {
    let server = try await TestHTTPServer.start(replying: Self.okStream)
    defer { Task { await server.stop() } }
    let outcome = await run(testModel(server, apiKey: apiKey), request)
    #expect(outcome.error == nil)
    let received = try #require(server.requests.first)
    return (try jsonBody(received), received)
  }

  @Test("instructions, a multi-turn conversation, and no generationConfig by default")
  func multiTurn() async throws {
    let transcript = Transcript(entries: [
      .instructions(Transcript.Instructions(text: "Answer in French.")),
      .prompt(Transcript.Prompt(text: "Hello")),
      .response(Transcript.Response(text: "Bonjour", modelVersion: "SmolLM2")),
      .prompt(Transcript.Prompt(text: "How are you?")),
    ])
    let (body, received) = try await sent(GenerationRequest(transcript: transcript, options: GenerationOptions()))
    #expect(received.method == "POST")
    #expect(received.uri == "/v1beta/models/test-model:streamGenerateContent?alt=sse")
    #expect(received.header("content-type") == "application/json")
    #expect(body == .object([
      "systemInstruction": .object(["parts": .array([.object(["text": .string("Answer in French.")])])]),
      "contents": .array([
        .object(["role": .string("user"), "parts": .array([.object(["text": .string("Hello")])])]),
        .object(["role": .string("model"), "parts": .array([.object(["text": .string("Bonjour")])])]),
        .object(["role": .string("user"), "parts": .array([.object(["text": .string("How are you?")])])]),
      ]),
    ]))
  }

  @Test("a remote file goes as fileData with its URI and MIME type; a stored one as inlineData with its bytes")
  func remoteFilesAsFileData() async throws {
    let directory = try TemporaryDirectory("gemini-files")
    defer { directory.remove() }
    let store = try FileArtifactStore(directory: directory.url)
    let stored = try store.store(Artifact(data: onePixelPNG, mimeType: "image/png", name: "dot.png"))
    let uri = URL(string: "https://generativelanguage.googleapis.com/v1beta/files/abc-123")!
    let prompt = Transcript.Prompt(segments: [
      .text(Transcript.TextSegment(content: "Compare.")),
      .attachment(.remote(uri, name: "abc-123", mimeType: "application/pdf")),
      .attachment(Transcript.AttachmentSegment(reference: stored)),
    ])
    let (body, _) = try await sent(GenerationRequest(transcript: Transcript(entries: [.prompt(prompt)]),
                                                     options: GenerationOptions(), artifactStore: store))
    #expect(body["contents"] == .array([.object(["role": .string("user"), "parts": .array([
      .object(["text": .string("Compare.")]),
      .object(["fileData": .object(["mimeType": .string("application/pdf"), "fileUri": .string(uri.absoluteString)])]),
      .object(["inlineData": .object(["mimeType": .string("image/png"), "data": .string(onePixelPNG.base64EncodedString())])]),
    ])])]))
  }

  @Test("the API key is sent as x-goog-api-key; without a key no header is sent")
  func apiKeyHeader() async throws {
    let (_, withKey) = try await sent(request(), apiKey: "secret-123")
    #expect(withKey.header("x-goog-api-key") == "secret-123")
    #expect(withKey.uri.contains("key=") == false)
    let (_, withoutKey) = try await sent(request(), apiKey: nil)
    #expect(withoutKey.header("x-goog-api-key") == nil)
    let (_, emptyKey) = try await sent(request(), apiKey: "")
    #expect(emptyKey.header("x-goog-api-key") == nil)
  }

  @Test("GEMINI_API_KEY and GEMINI_BASE_URL are the defaults")
  func environment() {
    setenv("GEMINI_API_KEY", "from-env", 1)
    setenv("GEMINI_BASE_URL", "http://127.0.0.1:9/custom", 1)
    defer {
      unsetenv("GEMINI_API_KEY")
      unsetenv("GEMINI_BASE_URL")
    }
    let client = GeminiClient()
    #expect(client.apiKey == "from-env")
    #expect(client.baseURL.absoluteString == "http://127.0.0.1:9/custom")
    let model = GeminiModel(name: "gemini-3.1-flash-lite")
    #expect(model.client.apiKey == "from-env")
    unsetenv("GEMINI_BASE_URL")
    #expect(GeminiClient(apiKey: nil).baseURL == GeminiClient.defaultBaseURL)
    #expect(GeminiClient(apiKey: nil).apiKey == nil)
  }

  @Test("thoughts and thought signatures go back as they came, via the response's provider content")
  func thoughtSignatureSentBack() async throws {
    // Turn 1: a thinking model answers with thought summaries and a signed function call.
    let fixture = try GeminiFixtures.data("streaming-success-thinking-function-call-thought-summary-signature.txt")
    let firstServer = try await TestHTTPServer.start(replying: .rawSSE(fixture, chunkSize: 200))
    defer { Task { await firstServer.stop() } }
    var firstRequest = request("How many days until New Year's Eve?")
    firstRequest.tools = [.now]
    let first = await run(testModel(firstServer), firstRequest)
    #expect(first.toolCalls.map(\.toolName) == ["now"])
    let provided = try #require(first.raw?.providerContent)
    let signature = try #require(GeminiFixtureFacts(fixture, streaming: true).signatures.first)

    // Turn 2 sends the whole transcript back.
    let transcript = Transcript(entries: [
      .prompt(Transcript.Prompt(text: "How many days until New Year's Eve?")),
      .response(Transcript.Response(text: "", modelVersion: first.raw?.modelVersion, providerContent: provided)),
      .prompt(Transcript.Prompt(text: "Thanks")),
    ])
    let (body, _) = try await sent(GenerationRequest(transcript: transcript, options: GenerationOptions()))
    guard case .array(let contents)? = body["contents"] else { Issue.record("no contents"); return }
    #expect(contents.count == 3)
    #expect(contents[1] == provided.content)
    guard case .array(let parts)? = contents[1]["parts"] else { Issue.record("no parts"); return }
    #expect(parts.first?["thought"] == .bool(true))
    #expect(parts.last?["thoughtSignature"] == .string(signature))
    #expect(parts.last?["functionCall"]?["name"] == .string("now"))
  }

  @Test("a response from another provider goes as plain text")
  func otherProvider() async throws {
    let transcript = Transcript(entries: [
      .prompt(Transcript.Prompt(text: "Hi")),
      .response(Transcript.Response(text: "Hello!", providerContent: ProviderContent(
        provider: "openai", content: .object(["content": .string("Hello!")])))),
      .prompt(Transcript.Prompt(text: "Again")),
    ])
    let (body, _) = try await sent(GenerationRequest(transcript: transcript, options: GenerationOptions()))
    guard case .array(let contents)? = body["contents"], contents.count == 3 else {
      Issue.record("expected three contents")
      return
    }
    let expected = JSONValue.object(["role": .string("model"), "parts": .array([.object(["text": .string("Hello!")])])])
    #expect(contents[1] == expected)
  }

  @Test(".gemini(config) reaches the request body as it is")
  func geminiOptions() async throws {
    let config = GenerationConfig(temperature: 0.8, topP: 0.9, maxOutputTokens: 100,
                                  thinkingConfig: ThinkingConfig(thinkingLevel: .high))
    let (body, _) = try await sent(request(options: .gemini(config)))
    #expect(body["generationConfig"] == .object([
      "temperature": .number(0.8), "topP": .number(0.9), "maxOutputTokens": .number(100),
      "thinkingConfig": .object(["thinkingLevel": .string("HIGH")]),
    ]))
  }

  @Test(".hybrid(gemini:onDevice:) sends the Gemini part, not the on-device part")
  func hybridOptions() async throws {
    let options = GenerationOptions.hybrid(
      gemini: GenerationConfig(temperature: 0.8, topP: 0.9, thinkingConfig: ThinkingConfig(thinkingBudget: 512)),
      onDevice: GenerationOptions(sampling: .random(probabilityThreshold: 0.5), temperature: 0.2,
                                  maximumResponseTokens: 7))
    let (body, _) = try await sent(request(options: options))
    #expect(body["generationConfig"] == .object([
      "temperature": .number(0.8), "topP": .number(0.9),
      "thinkingConfig": .object(["thinkingBudget": .number(512)]),
    ]))
  }

  @Test("on-device-only options leave the cloud at its defaults")
  func onDeviceOptions() async throws {
    let (body, _) = try await sent(request(options: .onDevice(GenerationOptions(temperature: 0.1))))
    #expect(body["generationConfig"] == nil)
  }

  @Test("generic options map onto generationConfig",
        arguments: [
          (GenerationOptions(sampling: .greedy, maximumResponseTokens: 64, stopSequences: ["END"]),
           JSONValue.object(["temperature": .number(0), "topK": .number(1), "maxOutputTokens": .number(64),
                             "stopSequences": .array([.string("END")])])),
          (GenerationOptions(sampling: .random(probabilityThreshold: 0.9, seed: 42), temperature: 0.7),
           JSONValue.object(["temperature": .number(0.7), "topP": .number(0.9), "seed": .number(42)])),
          (GenerationOptions(sampling: .random(top: 40, seed: 7)),
           JSONValue.object(["topK": .number(40), "seed": .number(7)])),
        ])
  func genericOptions(_ options: GenerationOptions, _ expected: JSONValue) async throws {
    let (body, _) = try await sent(request(options: options))
    #expect(body["generationConfig"] == expected)
  }
}
