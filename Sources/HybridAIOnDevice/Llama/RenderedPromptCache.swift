import CLlama
import HybridAI
import Synchronization

/// A session's last rendered and tokenized prompt, so that `supports(_:)` and `generate(_:)` of
/// one request render the chat template and tokenize the whole transcript only once.
final class RenderedPromptCache: Sendable {
  private struct Entry {
    let transcript: Transcript
    let tools: [ToolDefinition]
    let template: ChatTemplate
    let weights: ObjectIdentifier
    let tokens: [llama_token]
  }
  private let last = Mutex<Entry?>(nil)

  /// The tokens of `transcript` rendered with `template`, from the cache or made by `render`.
  func tokens(for transcript: Transcript, tools: [ToolDefinition], template: ChatTemplate, weights: LlamaModelWeights,
              render: () throws -> [llama_token]) rethrows -> [llama_token] {
    let weightsID = ObjectIdentifier(weights)
    if let cached = last.withLock({ $0 }), cached.weights == weightsID, cached.template == template,
       cached.transcript == transcript, cached.tools == tools {
      return cached.tokens
    }
    let tokens = try render()
    last.withLock { $0 = Entry(transcript: transcript, tools: tools, template: template, weights: weightsID, tokens: tokens) }
    return tokens
  }
}
