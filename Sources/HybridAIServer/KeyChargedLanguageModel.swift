import HybridAI
import HybridAIServing

/// A served model that charges each answer's prompt and output tokens to the API key of the
/// request that asked for it (``AuthenticatedKey/current``, read when the answer starts), so a key's
/// tokens-per-minute limit counts every product's answers: the Gemini and OpenAI APIs and the chat.
struct KeyChargedLanguageModel: LanguageModel {
  let base: any LanguageModel

  var modelIdentifier: String { base.modelIdentifier }
  var source: ModelSource { base.source }
  var availability: ModelAvailability { base.availability }
  var availabilityDetail: String? { base.availabilityDetail }
  var capabilities: ModelCapabilities { base.capabilities }
  func supports(_ request: GenerationRequest) async -> RequestSupport { await base.supports(request) }
  func prepareAssets() { base.prepareAssets() }
  var contextSize: Int { get async throws { try await base.contextSize } }
  func tokenCount(for request: GenerationRequest) async throws -> Int { try await base.tokenCount(for: request) }
  func prewarm(_ request: GenerationRequest) async throws { try await base.prewarm(request) }

  func generate(_ request: GenerationRequest) -> AsyncThrowingStream<GenerationEvent, any Error> {
    let events = base.generate(request)
    guard let key = AuthenticatedKey.current, key.chargesTokens else { return events }
    return AsyncThrowingStream { continuation in
      let task = Task {
        do {
          for try await event in events {
            if case .completed(let raw) = event { key.charge(tokens: raw.usage.promptTokens + raw.usage.outputTokens) }
            continuation.yield(event)
          }
          continuation.finish()
        } catch {
          continuation.finish(throwing: error)
        }
      }
      continuation.onTermination = { _ in task.cancel() }
    }
  }
}
