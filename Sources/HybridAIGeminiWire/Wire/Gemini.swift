import HybridAI

/// The namespace of the Gemini REST API's wire types whose plain names would be too generic at the
/// top level (`Content`, `Part`, `Candidate`, `Tool`, …).
///
/// The request and response envelopes and the configuration types keep their API names at the top
/// level: ``GenerateContentRequest``, ``GenerateContentResponse``, ``GenerationConfig``,
/// ``ThinkingConfig``, ``SafetySetting``, ``SafetyRating``, ``UsageMetadata``, ``PromptFeedback``,
/// ``CountTokensRequest``, ``CountTokensResponse``, ``ListModelsResponse``; errors decode as HybridAIWire's `GoogleErrorEnvelope`.
///
/// Every wire type is `Codable` both ways with the API's JSON names: `nil` fields are left out when
/// encoding and unknown fields are ignored when decoding, so the same types serve the client
/// (``GeminiModel``) and a Gemini-compatible server.
public enum Gemini {}

extension Gemini {
  /// The most attachment bytes one request carries inline (Gemini's request limit is 20 MB; larger
  /// files go through its Files API, which HybridAI does not use).
  public static let inlineDataLimit = 20_000_000

  /// Gemini's names of `modalities` in a fixed order: `TEXT`, `IMAGE`, `AUDIO`, `VIDEO`, `DOCUMENT`.
  public static func modalityNames(_ modalities: Set<Modality>) -> [String] {
    Modality.ordered(modalities).map { $0.rawValue.uppercased() }
  }
}
