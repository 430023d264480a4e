import HybridAI
import Synchronization

extension SystemLanguageModel {
  /// The chat template this model runs: where it came from (the GGUF's own, configured, or the
  /// ChatML fallback for a model without one), its source, and whether tools are written in the
  /// model's own format. Loads the weights on first use; throws the file's and the template's
  /// typed errors (``OnDeviceModelError/invalidChatTemplate(model:reason:)`` for a Jinja syntax error).
  public func chatTemplateDescription() async throws -> ChatTemplateDescription {
    try resolvedChatTemplate(for: try await loadedWeights()).description
  }

  /// Model paths whose ChatML fallback was already logged (once per process and file).
  private static let fallbackNoticeGiven = Mutex<Set<String>>([])

  /// The configured template, or the GGUF's own; logs once when a model without one falls back to ChatML.
  func resolvedChatTemplate(for weights: LlamaModelWeights) throws(OnDeviceModelError) -> ResolvedChatTemplate {
    let template = try ResolvedChatTemplate(configured: configuration.chatTemplate, weights: weights, modelName: modelIdentifier)
    if case .jinja(_, .fallback) = template, Self.fallbackNoticeGiven.withLock({ $0.insert(weights.path).inserted }) {
      logger.notice("the model has no chat template: HybridAI uses ChatML (name one with --chat-template or Configuration.chatTemplate)",
                    metadata: ["model": "\(modelIdentifier)"])
    }
    return template
  }
}
