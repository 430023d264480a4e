import HybridAI

/// A served model wrapped to watch its answers (metrics, API-key charging): everything but
/// `generate` is its ``base``'s.
protocol ForwardingLanguageModel: LanguageModel {
  /// The model that answers.
  var base: any LanguageModel { get }
}

extension ForwardingLanguageModel {
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
}
