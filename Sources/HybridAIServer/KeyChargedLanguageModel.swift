import HybridAI
import HybridAIServing

/// A served model that charges each answer's prompt and output tokens to the API key of the
/// request that asked for it (``AuthenticatedKey/current``, read when the answer starts), so a key's
/// tokens-per-minute limit counts every product's answers: the Gemini and OpenAI APIs and the chat.
///
/// An answer the client stopped reading (a stream it closed) has no usage of its own: it is charged
/// its prompt's tokens (counted afresh) and one token for each piece of text it was sent, so
/// closing streams early is no way around the limit.
struct KeyChargedLanguageModel: ForwardingLanguageModel {
  let base: any LanguageModel
  /// The prompt tokens of a request (the served model's `countTokens`).
  let countPrompt: @Sendable (GenerationRequest) async throws -> Int

  func generate(_ request: GenerationRequest) -> AsyncThrowingStream<GenerationEvent, any Error> {
    let events = base.generate(request)
    guard let key = AuthenticatedKey.current, key.chargesTokens else { return events }
    let countPrompt = self.countPrompt
    return AsyncThrowingStream { continuation in
      let task = Task {
        var deltas = 0
        var charged = false
        do {
          for try await event in events {
            switch event {
            case .completed(let raw):
              await key.charge(tokens: raw.usage.promptTokens + raw.usage.outputTokens)
              charged = true
            case .textDelta:
              deltas += 1
            default:
              break
            }
            continuation.yield(event)
          }
          continuation.finish()
        } catch {
          continuation.finish(throwing: error)
        }
        if !charged, Task.isCancelled {
          // Counted in a task of its own: this one is cancelled, and counting must not be.
          let prompt = await Task { (try? await countPrompt(request)) ?? 0 }.value
          await key.charge(tokens: prompt + deltas)
        }
      }
      continuation.onTermination = { _ in task.cancel() }
    }
  }
}
