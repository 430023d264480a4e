// Bytes a Gemini(-compatible) server answers with → what GeminiModel reads from them: a unary
// `GenerateContentResponse`, the JSON array of a stream without `alt=sse`, a server-sent-event
// stream whose events are chunks folded by `GenerateContentResponse.Accumulator`, Google's error
// envelope; then the conversions the client applies (usage, finish reason, log probabilities,
// function calls, inline data, provider metadata).
//
// Property: a decoded response encodes and decodes back to itself (the wire types are Codable
// both ways, and a server sends back what it received).
import Foundation
import FuzzDriver
import HybridAI
import HybridAIGeminiWire
import HybridAIHTTP

@_cdecl("FuzzGeminiResponse_main")
public func entryPoint(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
  hybridai_fuzz_main(argc, argv)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
  let data = Data(UnsafeRawBufferPointer(start: start, count: count))

  if let response = try? Gemini.JSON.decode(GenerateContentResponse.self, from: data) {
    inspect(response)
    checkRoundTrip(response)
  }
  if let chunks = try? Gemini.JSON.decode([GenerateContentResponse].self, from: data) {
    var accumulator = GenerateContentResponse.Accumulator()
    for chunk in chunks { accumulator.add(chunk) }
    inspect(accumulator.response)
  }
  _ = GoogleErrorEnvelope.body(from: data)
  _ = GoogleErrorEnvelope.message(from: data)

  var parser = ServerSentEventParser()
  var events = parser.parse(data)
  if let last = parser.finish() { events.append(last) }
  var accumulator = GenerateContentResponse.Accumulator()
  for event in events {
    let payload = Data(event.data.utf8)
    if let chunk = try? Gemini.JSON.decode(GenerateContentResponse.self, from: payload) {
      accumulator.add(chunk)
    } else {
      _ = GoogleErrorEnvelope.body(from: payload)
    }
  }
  if accumulator.chunkCount > 0 {
    inspect(accumulator.response)
    checkRoundTrip(accumulator.response)
  }
  _ = parser.strayText
  return 0
}

/// What GeminiModel takes from an answer.
private func inspect(_ response: GenerateContentResponse) {
  _ = response.text
  _ = response.providerMetadata
  let usage = Usage(gemini: response.usageMetadata)
  _ = usage.evaluatedPromptTokens
  _ = usage.totalTokens
  _ = UsageMetadata(usage)
  _ = FinishReason(gemini: response.finishReason)
  for candidate in response.candidates {
    _ = FinishReason(gemini: candidate.finishReason)
    _ = candidate.content?.thoughtText
    if let result = candidate.logprobsResult.flatMap({ try? $0.decode(as: LogprobsResult.self) }) {
      _ = result.entries
      _ = result.averageLogProbability
    }
    for part in candidate.content?.parts ?? [] {
      _ = part.data?.kind
      switch part.data {
      case .functionCall(let call)?:
        let toolCall = Transcript.ToolCall(gemini: call, parameters: nil)
        _ = Gemini.FunctionCall(toolCall)
      case .inlineData(let blob)?:
        _ = blob.bytes
      default:
        break
      }
    }
  }
}

private func checkRoundTrip(_ response: GenerateContentResponse) {
  guard let encoded = try? Gemini.JSON.encode(response) else { return }
  let decoded: GenerateContentResponse
  do {
    decoded = try Gemini.JSON.decode(GenerateContentResponse.self, from: encoded)
  } catch {
    fatalError("an encoded response does not decode: \(error)\n\(String(decoding: encoded, as: UTF8.self))")
  }
  precondition(decoded == response, "encode → decode changed the response:\n\(String(decoding: encoded, as: UTF8.self))")
}
