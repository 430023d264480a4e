import HybridAI
import Synchronization

/// A session's last rendered and tokenized prompt, so that `supports(_:)` and `generate(_:)` of
/// one request render the chat template and tokenize the whole transcript only once.
final class RenderedPromptCache: Sendable {
  private struct Entry {
    let transcript: Transcript
    let tools: [ToolDefinition]
    let toolChoice: ToolChoice?
    let hasResponseFormat: Bool
    let template: ChatTemplate?
    let weights: ObjectIdentifier
    let prompt: RenderedPrompt
  }
  private let last = Mutex<Entry?>(nil)

  /// The prompt of `request` rendered with `template`, from the cache or made by `render`.
  func prompt(for request: GenerationRequest, template: ChatTemplate?, weights: LlamaModelWeights,
              render: () throws -> RenderedPrompt) rethrows -> RenderedPrompt {
    let weightsID = ObjectIdentifier(weights)
    let toolChoice = request.options.toolChoice
    let hasResponseFormat = request.responseFormat != nil
    if let cached = last.withLock({ $0 }), cached.weights == weightsID, cached.template == template,
       cached.transcript == request.transcript, cached.tools == request.tools, cached.toolChoice == toolChoice,
       cached.hasResponseFormat == hasResponseFormat {
      return cached.prompt
    }
    let prompt = try render()
    last.withLock {
      $0 = Entry(transcript: request.transcript, tools: request.tools, toolChoice: toolChoice,
                 hasResponseFormat: hasResponseFormat, template: template, weights: weightsID, prompt: prompt)
    }
    return prompt
  }
}
