import Foundation
import HybridAI
import HybridAIGemini
import HybridAIServerTestSupport
import HybridAITestSupport
import Testing

/// Every recorded Gemini response in `shared/fixtures/gemini-mock-responses`, served over a real
/// local HTTP socket, decodes to the right answer or typed error. Values are compared with what
/// the fixture says, read independently (``GeminiFixtureFacts``).
@Suite("Recorded Gemini responses")
struct RecordedResponseTests {
  enum Expected: Sendable {
    /// A usable answer whose text contains this.
    case answer(containing: String)
    case invalidAPIKey
    case apiNotEnabled
    case unknownModel
    case invalidArgument
    case promptBlocked(reason: String?)
    case responseStopped(reason: String)
  }

  struct Case: Sendable, CustomTestStringConvertible {
    var file: String
    var expected: Expected
    var testDescription: String { file }
    var isStreaming: Bool { file.hasPrefix("streaming-") }
  }

  static let cases: [Case] = [
    Case(file: "streaming-failure-image-rejected.txt", expected: .invalidArgument),
    Case(file: "streaming-failure-prompt-blocked-safety.txt", expected: .promptBlocked(reason: "SAFETY")),
    Case(file: "streaming-failure-recitation-no-content.txt", expected: .responseStopped(reason: "RECITATION")),
    Case(file: "streaming-success-basic-reply-long.txt", expected: .answer(containing: "world of cats and dogs")),
    Case(file: "streaming-success-basic-reply-short.txt", expected: .answer(containing: "**Cheyenne**")),
    Case(file: "streaming-success-citations.txt", expected: .answer(containing: "quantum mechanics")),
    Case(file: "streaming-success-code-execution.txt", expected: .answer(containing: "is 28.")),
    Case(file: "streaming-success-empty-parts.txt", expected: .answer(containing: "cute cartoon kitten")),
    Case(file: "streaming-success-finish-message.txt", expected: .answer(containing: "Hello world!")),
    Case(file: "streaming-success-no-content-parts.txt", expected: .answer(containing: "pink pig")),
    Case(file: "streaming-success-thinking-function-call-thought-summary-signature.txt", expected: .answer(containing: "")),
    Case(file: "streaming-success-thinking-reply-thought-summary.txt", expected: .answer(containing: "The sky is blue")),
    Case(file: "streaming-success-url-context.txt", expected: .answer(containing: "Google homepage")),
    Case(file: "unary-failure-api-key.json", expected: .invalidAPIKey),
    Case(file: "unary-failure-api-key.txt", expected: .invalidAPIKey),
    Case(file: "unary-failure-finish-reason-safety.json", expected: .responseStopped(reason: "SAFETY")),
    Case(file: "unary-failure-finish-reason-safety.txt", expected: .responseStopped(reason: "SAFETY")),
    Case(file: "unary-failure-generativelanguage-api-not-enabled.json", expected: .apiNotEnabled),
    Case(file: "unary-failure-only-prompt-feedback.json", expected: .promptBlocked(reason: nil)),
    Case(file: "unary-failure-unknown-model.json", expected: .unknownModel),
    Case(file: "unary-failure-unknown-model.txt", expected: .unknownModel),
    Case(file: "unary-failure-with-message-no-content.json", expected: .responseStopped(reason: "OTHER")),
    Case(file: "unary-success-basic-reply-long.json", expected: .answer(containing: "professional-quality coffee")),
    Case(file: "unary-success-basic-reply-long.txt", expected: .answer(containing: "professional-quality coffee")),
    Case(file: "unary-success-basic-reply-short.json", expected: .answer(containing: "Mountain View, California")),
    Case(file: "unary-success-basic-reply-short.txt", expected: .answer(containing: "Mountain View, California")),
    Case(file: "unary-success-citations.json", expected: .answer(containing: "quantum mechanics")),
    Case(file: "unary-success-citations.txt", expected: .answer(containing: "quantum mechanics")),
    Case(file: "unary-success-code-execution.json", expected: .answer(containing: "= 28")),
    Case(file: "unary-success-google-maps-grounding.json", expected: .answer(containing: "pizza places")),
    Case(file: "unary-success-google-search-grounding-empty-grounding-chunks.json",
         expected: .answer(containing: "weather in London")),
    Case(file: "unary-success-google-search-grounding.json", expected: .answer(containing: "weather in London")),
    Case(file: "unary-success-thinking-function-call-thought-summary-signature.json",
         expected: .answer(containing: "")),
    Case(file: "unary-success-thinking-reply-thought-summary.json", expected: .answer(containing: "Mountain View")),
    Case(file: "unary-success-url-context-mixed-validity.json", expected: .answer(containing: "https://ai.google.dev")),
    Case(file: "unary-success-url-context.json", expected: .answer(containing: "Berkshire Hathaway")),
  ]

  @Test("every fixture file has a case")
  func everyFileHasACase() throws {
    let files = try GeminiFixtures.allFileNames()
    #expect(files.count == 36)
    #expect(Set(files) == Set(Self.cases.map(\.file)))
  }

  @Test("fixture", arguments: cases)
  func fixture(_ testCase: Case) async throws {
    let body = try GeminiFixtures.data(testCase.file)
    let facts = try GeminiFixtureFacts(body, streaming: testCase.isStreaming)
    if testCase.isStreaming {
      let outcome = try await streamed(body, facts: facts, as: testCase)
      try check(outcome, facts: facts, expected: testCase.expected, file: testCase.file)
    } else {
      try await checkUnary(body, facts: facts, expected: testCase.expected)
      // The same body as the one event of a stream (its JSON lines as multi-line `data:`), through GeminiModel.
      let outcome = try await streamed(body, facts: facts, as: testCase)
      try check(outcome, facts: facts, expected: testCase.expected, file: testCase.file)
    }
  }

  // MARK: - Serving

  private func streamed(_ body: Data, facts: GeminiFixtureFacts, as testCase: Case) async throws -> Outcome {
    let reply: TestHTTPServer.Reply
    if let status = facts.errorCode {
      reply = .json(String(decoding: body, as: UTF8.self), status: status)
    } else if testCase.isStreaming {
      reply = .rawSSE(body, chunkSize: 61)  // events split across chunks at arbitrary points
    } else {
      let event = String(decoding: body, as: UTF8.self).split(whereSeparator: \.isNewline)
        .map { "data: \($0)\n" }.joined() + "\n"
      reply = .rawSSE(Data(event.utf8), chunkSize: 97)
    }
    let server = try await TestHTTPServer.start(replying: reply)
    defer { Task { await server.stop() } }
    // The recorded function calls call `now`: offer it, as the recording's request did.
    var generation = request()
    if testCase.file.contains("function-call") { generation.tools = [.now] }
    let outcome = await run(testModel(server), generation)
    let served = try #require(server.requests.first)
    #expect(served.uri == "/v1beta/models/test-model:streamGenerateContent?alt=sse")
    return outcome
  }

  private func checkUnary(_ body: Data, facts: GeminiFixtureFacts, expected: Expected) async throws {
    let server = try await TestHTTPServer.start(
      replying: .json(String(decoding: body, as: UTF8.self), status: facts.errorCode ?? 200))
    defer { Task { await server.stop() } }
    let model = testModel(server)
    let result: Result<GenerateContentResponse, any Error>
    do {
      result = .success(try await model.generateContent(GenerateContentRequest(contents: [.user("Hi")])))
    } catch {
      result = .failure(error)
    }
    #expect(server.requests.first?.uri == "/v1beta/models/test-model:generateContent")
    switch (expected, result) {
    case (.answer(let containing), .success(let response)):
      #expect(response.text == facts.text)
      #expect(containing.isEmpty || response.text.contains(containing))
      #expect(response.finishReason?.rawValue == facts.finishReason)
      #expect(response.modelVersion == facts.modelVersion)
      #expect(response.responseId == facts.responseId)
      #expect(response.usageMetadata?.promptTokenCount == facts.usage?["promptTokenCount"]?.int)
      #expect(response.usageMetadata?.candidatesTokenCount == facts.usage?["candidatesTokenCount"]?.int)
      #expect(response.usageMetadata?.thoughtsTokenCount == facts.usage?["thoughtsTokenCount"]?.int)
      #expect(response.usageMetadata?.totalTokenCount == facts.usage?["totalTokenCount"]?.int)
      let candidate = try #require(response.candidates.first)
      #expect(candidate.content?.thoughtText == facts.thoughtText)
      #expect(candidate.content?.parts.compactMap(\.thoughtSignature) == facts.signatures)
      #expect(candidate.content?.parts.compactMap { $0.data?.kind }.filter { $0 != "text" } == facts.dataKinds)
      #expect(candidate.groundingMetadata == facts.grounding)
      #expect(candidate.urlContextMetadata == facts.urlContext)
      #expect(candidate.citationMetadata?["citationSources"] == (facts.citationSources.isEmpty ? nil : .array(facts.citationSources)))
      #expect(candidate.safetyRatings?.count == facts.safetyRatings.map { if case .array(let list) = $0 { list.count } else { -1 } })
      // Codable both ways: encoding the decoded response gives back the recorded JSON.
      #expect(try JSONValue(encoding: response) == facts.chunks[0])
    case (.answer, .failure(let error)):
      Issue.record("expected an answer, got \(error)")
    case (_, .success(let response)):
      Issue.record("expected \(expected), got an answer: \(response.text)")
    case (_, .failure(let error)):
      try checkError(error, facts: facts, expected: expected)
    }
  }

  // MARK: - Checking

  private func check(_ outcome: Outcome, facts: GeminiFixtureFacts, expected: Expected, file: String) throws {
    switch expected {
    case .answer(let containing):
      if let error = outcome.error { Issue.record("expected an answer, got \(error)"); return }
      let raw = try #require(outcome.raw)
      #expect(outcome.text == facts.text)
      #expect(containing.isEmpty || outcome.text.contains(containing))
      #expect(raw.modelVersion == facts.modelVersion ?? "test-model")
      #expect(raw.source == .cloud)
      #expect(raw.finishReason == .stop)
      #expect(facts.finishReason == "STOP")
      #expect(outcome.toolCalls.map(\.toolName) == (facts.dataKinds.contains("functionCall") ? ["now"] : []))
      #expect(raw.usage == Usage(
        promptTokens: facts.usage("promptTokenCount"), cachedPromptTokens: facts.usage("cachedContentTokenCount"),
        outputTokens: facts.usage("candidatesTokenCount") + facts.usage("thoughtsTokenCount"),
        reasoningTokens: facts.usage("thoughtsTokenCount"), toolUsePromptTokens: facts.usage("toolUsePromptTokenCount")))
      let provided = try #require(raw.providerContent)
      #expect(provided.provider == "gemini")
      let content = try provided.content.decode(as: Gemini.Content.self)
      #expect(content.role == "model")
      // Inline files come out as artifacts with the exact bytes; the provider content keeps a
      // placeholder per file (never the bytes), with the part's signature.
      #expect(outcome.artifacts.map(\.mimeType) == facts.inlineFiles.map(\.mimeType))
      #expect(outcome.artifacts.map(\.data) == facts.inlineFiles.map(\.bytes))
      let placeholders = content.parts.filter { $0.text == Gemini.generatedFilePlaceholder }.count
      #expect(placeholders == facts.inlineFiles.count)
      #expect(content.text.replacingOccurrences(of: Gemini.generatedFilePlaceholder, with: "") == facts.text)
      #expect(content.thoughtText == facts.thoughtText)
      #expect(content.parts.compactMap(\.thoughtSignature) == facts.signatures)
      #expect(content.parts.compactMap { $0.data?.kind }.filter { $0 != "text" } == facts.dataKinds.filter { $0 != "inlineData" })
      // Adjacent text parts of the same kind are joined: no two neighbours are both plain text or both thoughts.
      for (left, right) in zip(content.parts, content.parts.dropFirst())
      where left.text != nil && right.text != nil && right.text != Gemini.generatedFilePlaceholder
        && left.text != Gemini.generatedFilePlaceholder {
        #expect(left.isThought != right.isThought || left.thoughtSignature != nil)
      }
      let metadata = try #require(provided.metadata)
      #expect(metadata["responseId"]?.string == facts.responseId)
      #expect(metadata["finishReason"]?.string == facts.finishReason)
      #expect(metadata["finishMessage"]?.string == facts.finishMessage)
      #expect(metadata["groundingMetadata"] == facts.grounding)
      #expect(metadata["urlContextMetadata"] == facts.urlContext)
      #expect(metadata["citationMetadata"]?["citationSources"]
        == (facts.citationSources.isEmpty ? nil : .array(facts.citationSources)))
      #expect(metadata["usageMetadata"] == facts.usage)
    default:
      guard let error = outcome.error else {
        Issue.record("expected \(expected), got an answer: \(outcome.text)")
        return
      }
      // Whatever text came before the failure is the answer's text (RECITATION after eight chunks).
      #expect(outcome.raw == nil)
      if case .responseStopped = expected, file.hasPrefix("streaming-") { #expect(outcome.text == facts.text) }
      try checkError(error, facts: facts, expected: expected)
    }
  }

  private func checkError(_ error: any Error, facts: GeminiFixtureFacts, expected: Expected) throws {
    let gemini = try #require(error as? GeminiError, "\(error)")
    #expect(gemini.offlineReason == nil, "a response from the server is never offline")
    switch (expected, gemini) {
    case (.invalidAPIKey, .invalidAPIKey(let api)),
         (.apiNotEnabled, .apiNotEnabled(let api)),
         (.unknownModel, .unknownModel(let api)),
         (.invalidArgument, .invalidArgument(let api)):
      #expect(api.httpStatus == facts.errorCode)
      #expect(api.message == facts.chunks[0]["error"]?["message"]?.string)
      #expect(api.status == facts.chunks[0]["error"]?["status"]?.string)
    case (.promptBlocked(let reason), .promptBlocked(let actual, let message, let response)):
      #expect(actual?.rawValue == reason)
      #expect(actual?.rawValue == facts.blockReason)
      #expect(message == facts.blockReasonMessage)
      #expect(response.candidates.isEmpty)
    case (.responseStopped(let reason), .responseStopped(let actual, let message, let response)):
      #expect(actual.rawValue == reason)
      #expect(actual.rawValue == facts.finishReason)
      #expect(message == facts.finishMessage)
      #expect(response.text == facts.text)
      #expect(response.candidates.first?.citationMetadata?["citationSources"]
        == (facts.citationSources.isEmpty ? nil : .array(facts.citationSources)))
    default:
      Issue.record("expected \(expected), got \(gemini)")
    }
  }
}
