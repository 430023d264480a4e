import HybridAI
import HybridAIServing

/// A served model that charges each answer's prompt and output tokens to the API key of the
/// request that asked for it (``AuthenticatedKey/current``, read when the answer starts), so a key's
/// tokens-per-minute limit counts every product's answers: the Gemini and OpenAI APIs and the chat.
struct KeyChargedLanguageModel: ForwardingLanguageModel {
  let base: any LanguageModel

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
