import HybridAI

/// A model that is never asked anything: enough to create and reopen sessions in tests.
struct StubLanguageModel: LanguageModel {
  var modelIdentifier = "stub-model"
  var source: ModelSource { .onDevice }
  var availability: ModelAvailability { .available }

  func supports(_ request: GenerationRequest) async -> RequestSupport { .supported }

  func generate(_ request: GenerationRequest) -> AsyncThrowingStream<GenerationEvent, any Error> {
    AsyncThrowingStream { $0.finish() }
  }
}
