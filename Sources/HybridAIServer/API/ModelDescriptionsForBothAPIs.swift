import HybridAIGeminiWire
import HybridAIOpenAIWire

/// `GET /v1/models`: Gemini's list (`models`) with OpenAI's beside it (`object`, `data`) in one
/// object, so the clients of both APIs read it. Gemini's `v1` and OpenAI clients whose base URL is
/// `/v1` (the convention of llama-server, Ollama, vLLM) ask for the same path; each reads its keys
/// and ignores the others' (llama-server's `/v1/models` answers two APIs the same way).
struct ModelListForBothAPIs: Encodable {
  let gemini: ListModelsResponse
  let openAI: ChatModelList

  func encode(to encoder: any Encoder) throws {
    try gemini.encode(to: encoder)   // both write into the one JSON object
    try openAI.encode(to: encoder)
  }
}

/// `GET /v1/models/{model}`: Gemini's description (`name`, `version`, `inputTokenLimit`, …) and
/// OpenAI's (`id`, `object`, `created`, `owned_by`) in one object, as ``ModelListForBothAPIs``.
struct ModelInfoForBothAPIs: Encodable {
  let gemini: Gemini.ModelInfo
  let openAI: ChatModelInfo

  func encode(to encoder: any Encoder) throws {
    try gemini.encode(to: encoder)
    try openAI.encode(to: encoder)
  }
}
