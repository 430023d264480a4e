// Bytes an OpenAI-compatible server answers with → what OpenAIModel and OpenAIClient read from
// them: a `ChatCompletion`, one `ChatCompletionChunk`, a server-sent-event stream of chunks (up to
// `data: [DONE]`) folded by `ChatCompletionAccumulator`, the error envelope, embeddings, model lists
// and text completions; then tool-call arguments as JSON, log probabilities, content parts.
//
// Property: a decoded completion or chunk encodes and decodes back to itself.
import Foundation
import FuzzDriver
import HybridAI
import HybridAIHTTP
import HybridAIOpenAIWire

@_cdecl("FuzzOpenAIResponse_main")
public func entryPoint(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
  hybridai_fuzz_main(argc, argv)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
  let data = Data(UnsafeRawBufferPointer(start: start, count: count))
  let decoder = JSONDecoder()

  if let completion = try? decoder.decode(ChatCompletion.self, from: data) {
    for choice in completion.choices {
      inspect(choice.message)
      _ = choice.logprobs?.entries
    }
    _ = completion.usage?.totalTokens
    checkRoundTrip(completion)
  }
  if let chunk = try? decoder.decode(ChatCompletionChunk.self, from: data) {
    var accumulator = ChatCompletionAccumulator()
    accumulator.add(chunk)
    inspect(accumulator)
    checkRoundTrip(chunk)
  }
  _ = try? decoder.decode(OpenAIErrorEnvelope.self, from: data)
  if let embeddings = try? decoder.decode(EmbeddingsResponse.self, from: data) {
    for item in embeddings.data { _ = item.embedding.values }
  }
  _ = try? decoder.decode(ChatModelList.self, from: data)
  if let completion = try? decoder.decode(Completion.self, from: data) {
    for choice in completion.choices { _ = choice.text.count }
  }

  // The stream, as OpenAIClient reads it: chunks until `[DONE]`, an error event stops it.
  var parser = ServerSentEventParser()
  var events = parser.parse(data)
  if let last = parser.finish() { events.append(last) }
  var accumulator = ChatCompletionAccumulator()
  for event in events {
    let payload = event.data.trimmingCharacters(in: .whitespacesAndNewlines)
    if payload == "[DONE]" { break }
    if payload.isEmpty { continue }
    if let chunk = try? decoder.decode(ChatCompletionChunk.self, from: Data(payload.utf8)) {
      accumulator.add(chunk)
    } else if (try? decoder.decode(OpenAIErrorEnvelope.self, from: Data(payload.utf8))) != nil {
      break
    }
  }
  inspect(accumulator)
  return 0
}

private func inspect(_ message: ChatMessage) {
  switch message.content {
  case .text(let text)?: _ = text.utf8.count
  case .parts(let parts)?: for part in parts { _ = part.mimeType }
  case nil: break
  }
  for call in message.toolCalls ?? [] { readArguments(call.function.arguments) }
}

private func inspect(_ accumulator: ChatCompletionAccumulator) {
  for call in accumulator.toolCalls { readArguments(call.function.arguments) }
  if let tokens = accumulator.logProbabilities { _ = ChatLogProbabilities(content: tokens).entries }
  _ = accumulator.usage?.completionTokensDetails?.reasoningTokens
  _ = accumulator.text.utf8.count
}

/// Tool-call arguments are JSON text inside the JSON answer.
private func readArguments(_ text: String) {
  _ = try? JSONValue(jsonString: text)
  if let content = try? GeneratedContent(json: text) { _ = content.jsonValue }
}

private func checkRoundTrip<Value: Codable & Equatable>(_ value: Value) {
  guard let encoded = try? JSONEncoder().encode(value) else { return }
  let decoded: Value
  do {
    decoded = try JSONDecoder().decode(Value.self, from: encoded)
  } catch {
    fatalError("an encoded \(Value.self) does not decode: \(error)\n\(String(decoding: encoded, as: UTF8.self))")
  }
  precondition(decoded == value, "encode → decode changed the \(Value.self):\n\(String(decoding: encoded, as: UTF8.self))")
}
