/// Names of the OpenAI Chat Completions API, as HybridAI speaks it: ``OpenAIModel`` on the client
/// side, `OpenAICompatibleAPI` on the server side (`hybrid serve` under `/v1beta/openai/` and `/v1/`).
public enum OpenAI {
  /// The provider name in ``HybridAI/ProviderContent`` (answers of ``OpenAIModel``: the assistant message).
  public static let providerName = "openai"
  /// Where `hybrid serve` (and Google's Gemini API) answer the OpenAI API: `/v1beta/openai`.
  public static let servedPathPrefix = "/v1beta/openai"
  /// Where `hybrid serve` also answers Chat Completions: `/v1`, the base URL OpenAI clients are
  /// usually given for a local server (llama-server, Ollama, vLLM).
  public static let conventionalPathPrefix = "/v1"
}
