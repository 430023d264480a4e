/// A request's safety filter for one harm category (`safetySettings` of a
/// ``GenerateContentRequest``).
///
/// ```swift
/// SafetySetting(harmCategory: .dangerousContent, threshold: .blockOnlyHigh)
/// ```
public struct SafetySetting: Sendable, Hashable, Codable {
  /// The category of harm.
  public var category: Gemini.HarmCategory
  /// From which probability of harm to block.
  public var threshold: Gemini.HarmBlockThreshold
  /// Whether the threshold applies to probability or severity (`PROBABILITY`, `SEVERITY`); Vertex AI only.
  public var method: String?

  /// A filter that blocks `harmCategory` from `threshold` on.
  public init(harmCategory: Gemini.HarmCategory, threshold: Gemini.HarmBlockThreshold, method: String? = nil) {
    self.category = harmCategory
    self.threshold = threshold
    self.method = method
  }
}
