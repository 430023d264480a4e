// Request bodies `hybrid serve` accepts → the wire types, decoded as its endpoints decode them
// (a plain JSONDecoder), and their conversion to HybridAI requests: Gemini's `generateContent`,
// `countTokens`, `embedContent` and `batchEmbedContents`; OpenAI's chat completions, completions
// and embeddings. Each converted request then goes through what a served model does with a
// request before generating: tool arguments and a structured answer checked against the request's
// schemas, and the request written back in either API's form (a forwarding server sends it on).
import Foundation
import FuzzDriver
import HybridAI
import HybridAIGeminiWire
import HybridAIOpenAIWire

@_cdecl("FuzzServerRequests_main")
public func entryPoint(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
  hybridai_fuzz_main(argc, argv)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
  let data = Data(UnsafeRawBufferPointer(start: start, count: count))
  let decoder = JSONDecoder()

  // Gemini API.
  if let wire = try? decoder.decode(GenerateContentRequest.self, from: data) {
    _ = try? wire.toolDefinitions()
    _ = try? wire.responseFormat()
    _ = try? wire.transcriptAndOptions()
    if let request = try? wire.generationRequest() { serve(request) }
  }
  if let countRequest = try? decoder.decode(CountTokensRequest.self, from: data) {
    let wire = countRequest.generateContentRequest ?? GenerateContentRequest(contents: countRequest.contents ?? [])
    if let request = try? wire.generationRequest() { serve(request) }
  }
  if let embed = try? decoder.decode(EmbedContentRequest.self, from: data) {
    _ = embed.content.text
  }
  if let batch = try? decoder.decode(BatchEmbedContentsRequest.self, from: data) {
    for request in batch.requests { _ = request.content.text }
  }

  // OpenAI API.
  if let chat = try? decoder.decode(ChatCompletionRequest.self, from: data) {
    _ = chat.choiceCount
    _ = try? chat.generationOptions()
    _ = try? chat.toolDefinitions()
    _ = chat.hybridResponseFormat()
    if let request = try? chat.generationRequest() { serve(request) }
  }
  if let completion = try? decoder.decode(CompletionRequest.self, from: data) {
    _ = completion.choiceCount
    if let requests = try? completion.generationRequests() {
      for request in requests { serve(request) }
    }
  }
  if let embeddings = try? decoder.decode(EmbeddingsRequest.self, from: data) {
    _ = embeddings.input.texts
  }
  return 0
}

/// What happens to a converted request on its way to a model and back to the client.
private func serve(_ request: GenerationRequest) {
  // GenerationRequest has no description: what a served model reads first instead.
  _ = request.conversationSupport
  _ = request.newAttachments.map(\.mimeType)
  if request.promptRendering == .plainText { _ = try? request.plainTextPrompt() }
  for tool in request.tools {
    _ = try? request.offeredTool(calledAs: tool.name, arguments: .object([:]))
  }
  _ = try? request.checkStructuredAnswer("{}")
  _ = try? request.checkStructuredAnswer("[1, \"two\", null]", reachedTokenLimit: true)
  _ = try? GenerateContentRequest(request)
  _ = ChatCompletionRequest(request, model: "fuzz")
}
