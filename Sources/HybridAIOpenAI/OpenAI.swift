/// Names of the OpenAI Chat Completions API, as HybridAI speaks it: ``OpenAIModel`` on the client
/// side, `OpenAICompatibleAPI` on the server side (`hybrid serve` under `/v1beta/openai/`).
public enum OpenAI {
  /// The provider name in ``HybridAI/ProviderContent`` (answers of ``OpenAIModel``: the assistant message).
  public static let providerName = "openai"
  /// Where `hybrid serve` (and Google's Gemini API) answer the OpenAI API: `/v1beta/openai`.
  public static let servedPathPrefix = "/v1beta/openai"
}
