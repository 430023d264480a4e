import Foundation
import HybridAI
import HybridAIGemini
import HybridAIServerTestSupport
import HybridAITestSupport
import Testing

/// Answers shaped like Google's real ones in ways the recorded fixtures do not cover: finish
/// reasons and enum values this library does not know, parts of kinds it does not render.
@Suite("Gemini answers: robustness")
struct AnswerRobustnessTests {
  @Test("a finish reason other than STOP or MAX_TOKENS after some text stops early with the reason and the partial text",
        arguments: ["MALFORMED_FUNCTION_CALL", "OTHER", "LANGUAGE", "SOME_FUTURE_REASON"])
  func stoppedEarly(_ reason: String) async throws {
    let server = try await TestHTTPServer.start(replying: .sse([
      #"{"candidates": [{"content": {"role": "model", "parts": [{"text": "Half an"}]}}]}"#,
      #"{"candidates": [{"content": {"role": "model", "parts": [{"text": " answer"}]}, "finishReason": "\#(reason)", "finishMessage": "why"}]}"#,
    ]))
    defer { Task { await server.stop() } }
    let outcome = await run(testModel(server), request())
    guard case .responseStopped(let actual, let message, _)? = outcome.geminiError else {
      Issue.record("expected responseStopped, got \(String(describing: outcome.error))")
      return
    }
    #expect(actual.rawValue == reason)
    #expect(message == "why")
    #expect(outcome.geminiError?.partialText == "Half an answer", "all the text that came, the stopping chunk's included")
    #expect(outcome.raw == nil, "never a success")
    #expect("\(outcome.geminiError!)".contains(reason))

    // Through a session, the same typed error (policy reasons become guardrail violations instead).
    let session = GenerativeModelSession(model: testModel(server))
    await #expect { _ = try await session.respond(to: "Hi") } throws: { error in
      (error as? GeminiError)?.partialText != nil
    }
  }

  @Test("a unary answer that stops for an unknown reason is the same typed error")
  func unaryStoppedEarly() async throws {
    let server = try await TestHTTPServer.start(replying: .json(
      #"{"candidates": [{"content": {"role": "model", "parts": [{"text": "Partial"}]}, "finishReason": "NEW_REASON"}]}"#))
    defer { Task { await server.stop() } }
    await #expect {
      _ = try await testModel(server).generateContent(GenerateContentRequest(contents: [.user("Hi")]))
    } throws: { error in
      guard case .responseStopped(let reason, _, _) = error as? GeminiError else { return false }
      return reason.rawValue == "NEW_REASON" && (error as? GeminiError)?.partialText == "Partial"
    }
  }

  @Test("unknown enum values (block reason, harm category and probability, modality) decode and are reported")
  func unknownEnums() async throws {
    let answer = #"""
      {"candidates": [{"content": {"role": "model", "parts": [{"text": "Fine."}]}, "finishReason": "STOP",
        "safetyRatings": [{"category": "HARM_CATEGORY_FUTURE", "probability": "SOMEWHAT_LIKELY"}]}],
       "usageMetadata": {"promptTokenCount": 4, "candidatesTokenCount": 1, "totalTokenCount": 5,
         "promptTokensDetails": [{"modality": "HOLOGRAM", "tokenCount": 4}]},
       "modelVersion": "gemini-future"}
      """#
    let response = try Gemini.JSON.decode(GenerateContentResponse.self, from: Data(answer.utf8))
    let rating = try #require(response.candidates.first?.safetyRatings?.first)
    #expect(rating.category?.rawValue == "HARM_CATEGORY_FUTURE")
    #expect(rating.probability?.rawValue == "SOMEWHAT_LIKELY")
    #expect(response.usageMetadata?.promptTokensDetails?.first?.modality == "HOLOGRAM")
    // Encoded again, the unknown values go back as they came.
    #expect(try JSONValue(encoding: response) == (try JSONDecoder().decode(JSONValue.self, from: Data(answer.utf8))))

    let blocked = #"{"promptFeedback": {"blockReason": "FUTURE_BLOCK", "blockReasonMessage": "no"}}"#
    let server = try await TestHTTPServer.start(replying: .sse([blocked]))
    defer { Task { await server.stop() } }
    let outcome = await run(testModel(server), request())
    guard case .promptBlocked(let reason, let message, _)? = outcome.geminiError else {
      Issue.record("expected promptBlocked, got \(String(describing: outcome.error))")
      return
    }
    #expect(reason?.rawValue == "FUTURE_BLOCK")
    #expect(message == "no")
  }

  @Test("parts of kinds the library does not render are kept, not fatal")
  func unknownParts() async throws {
    let server = try await TestHTTPServer.start(replying: .sse([
      #"{"candidates": [{"content": {"role": "model", "parts": [{"text": "Look: "}, {"hologram": {"frames": 3}}, {"executableCode": {"language": "PYTHON", "code": "print(1)"}}]}}]}"#,
      #"{"candidates": [{"content": {"role": "model", "parts": [{"text": "done"}]}, "finishReason": "STOP"}]}"#,
    ]))
    defer { Task { await server.stop() } }
    let outcome = await run(testModel(server), request())
    #expect(outcome.error == nil, "\(String(describing: outcome.error))")
    #expect(outcome.text == "Look: done")
    let content = try #require(try outcome.raw?.providerContent?.content.decode(as: Gemini.Content.self))
    #expect(content.parts.contains { $0.otherFields["hologram"] == .object(["frames": 3]) })
    #expect(content.parts.contains { if case .executableCode = $0.data { true } else { false } })
  }

  @Test("an image answer whose safety ratings hold empty objects ({}), as Google sends them, is an answer",
        arguments: [false, true])
  func emptySafetyRatings(streamed: Bool) async throws {
    let answer = #"{"candidates": [{"content": {"role": "model", "parts": [{"text": "Here it is"}, "#
      + #"{"inlineData": {"mimeType": "image/png", "data": "\#(onePixelPNG.base64EncodedString())"}}]}, "#
      + #""finishReason": "STOP", "index": 0, "safetyRatings": [{}, {}, {"category": "HARM_CATEGORY_HARASSMENT"}]}], "#
      + #""usageMetadata": {"promptTokenCount": 9, "candidatesTokenCount": 1290, "totalTokenCount": 1299, "#
      + #""promptTokensDetails": [{"tokenCount": 9}]}, "modelVersion": "gemini-2.5-flash-image"}"#
    let server = try await TestHTTPServer.start(replying: streamed ? .sse([answer]) : .json(answer))
    defer { Task { await server.stop() } }
    if streamed {
      let outcome = await run(testModel(server), request(options: GenerationOptions(responseModalities: [.image])))
      #expect(outcome.error == nil, "\(String(describing: outcome.error))")
      #expect(outcome.text == "Here it is")
      #expect(outcome.artifacts.first?.mimeType == "image/png")
    } else {
      let response = try await testModel(server).generateContent(GenerateContentRequest(contents: [.user("Draw")]))
      let ratings = try #require(response.candidates.first?.safetyRatings)
      #expect(ratings.count == 3)
      #expect(ratings[0].category == nil && ratings[0].probability == nil)
      #expect(ratings[2].category?.rawValue == "HARM_CATEGORY_HARASSMENT")
      #expect(response.usageMetadata?.promptTokensDetails?.first?.modality == nil)
    }
  }

  @Test("a structured answer cut at MAX_TOKENS is 'reached the limit of N tokens', not an invalid answer")
  func structuredAnswerAtTokenLimit() async throws {
    let server = try await TestHTTPServer.start(replying: .sse([
      #"{"candidates": [{"content": {"role": "model", "parts": [{"text": "{\"name\": \"a long na"}]}, "finishReason": "MAX_TOKENS"}]}"#,
    ]))
    defer { Task { await server.stop() } }
    let schema = GenerationSchema(jsonSchema: .object([
      "type": "object", "properties": .object(["name": .object(["type": "string"])]), "required": .array(["name"]),
    ]))
    let session = GenerativeModelSession(model: testModel(server))
    await #expect {
      _ = try await session.respond(to: "Name it", schema: schema, options: GenerationOptions(maximumResponseTokens: 8))
    } throws: { error in
      guard case .exceededTokenLimit(let limit, let raw)? = error as? GenerationError else { return false }
      return limit == 8 && raw == #"{"name": "a long na"#
        && "\(error)" == "reached the limit of 8 tokens before the structured answer was complete"
    }
  }
}
