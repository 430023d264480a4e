import HybridAI
import Synchronization

extension GeminiModel {
  /// The model's input token limit, from `GET models/{name}` (asked once per model value, then
  /// remembered). Throws ``GeminiError`` when the service cannot be asked, and
  /// ``HybridAI/GenerationError/unsupportedCapability(_:)`` when it states no limit.
  public var contextSize: Int {
    get async throws {
      if let known = modelInfoCache.inputTokenLimit { return known }
      guard let limit = try await fetchModelInfo().inputTokenLimit else {
        throw GenerationError.unsupportedCapability("\(modelIdentifier) states no inputTokenLimit")
      }
      return limit
    }
  }

  /// The prompt tokens of `request` as Gemini counts them: `countTokens` with the whole
  /// `generateContentRequest` (system instruction, tools and contents). Throws ``GeminiError``
  /// (``GeminiError/offline(_:detail:)`` when the service cannot be reached).
  public func tokenCount(for request: GenerationRequest) async throws -> Int {
    try await countTokens(CountTokensRequest(generateContentRequest: try GenerateContentRequest(request))).totalTokens
  }

  /// Checks that the service knows the model (`GET models/{name}`, which also opens the connection
  /// and remembers ``contextSize``). Throws ``GeminiError`` as a request would: an unknown model,
  /// a rejected key, an unreachable service.
  public func prewarm(_ request: GenerationRequest) async throws {
    _ = try await fetchModelInfo()
  }

  /// `GET models/{name}`, remembering the input token limit.
  private func fetchModelInfo() async throws -> Gemini.ModelInfo {
    let info = try await model()
    if let limit = info.inputTokenLimit { modelInfoCache.inputTokenLimit = limit }
    return info
  }
}

/// What ``GeminiModel`` remembers about its model between calls.
final class GeminiModelInfoCache: Sendable {
  private let state = Mutex<Int?>(nil)

  var inputTokenLimit: Int? {
    get { state.withLock { $0 } }
    set { state.withLock { $0 = newValue } }
  }
}
