/// Names of the OpenAI Chat Completions API, as HybridAI speaks it (server side in
/// `OpenAICompatibleAPI`, `hybrid serve` under `/v1beta/openai/`).
public enum OpenAI {
  /// The provider name in ``HybridAI/ProviderContent``.
  public static let providerName = "openai"
  /// Where `hybrid serve` (and Google's Gemini API) answer the OpenAI API: `/v1beta/openai`.
  public static let servedPathPrefix = "/v1beta/openai"
}
