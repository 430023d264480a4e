import CLlama

/// How an on-device model's per-token states become one vector per text.
public enum EmbeddingPooling: String, Sendable, Hashable, CaseIterable {
  /// The model's own pooling, as its GGUF file states it (embedding models such as BGE or
  /// EmbeddingGemma do); ``mean`` for a model that states none, such as a chat model.
  case automatic
  /// The average of every token's state (llama-server's `--pooling mean`).
  case mean
  /// The state of the first token (BERT's `[CLS]`).
  case firstToken
  /// The state of the last token (decoder embedding models such as Qwen3-Embedding).
  case lastToken

  var llamaPoolingType: llama_pooling_type {
    switch self {
    case .automatic: LLAMA_POOLING_TYPE_UNSPECIFIED
    case .mean: LLAMA_POOLING_TYPE_MEAN
    case .firstToken: LLAMA_POOLING_TYPE_CLS
    case .lastToken: LLAMA_POOLING_TYPE_LAST
    }
  }
}
