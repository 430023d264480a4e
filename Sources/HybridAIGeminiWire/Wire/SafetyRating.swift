/// How harmful the prompt or a candidate was rated in one category. Every field is optional, as in
/// Google's SDKs: the API sends empty ratings (`{}`) beside some answers.
public struct SafetyRating: Sendable, Hashable, Codable {
  /// The category of harm.
  public var category: Gemini.HarmCategory?
  /// How likely the content is harmful.
  public var probability: Gemini.HarmProbability?
  /// The probability as a score, when the API sends one.
  public var probabilityScore: Double?
  /// How severe the harm would be (`HARM_SEVERITY_…`), when the API sends it.
  public var severity: String?
  /// The severity as a score, when the API sends one.
  public var severityScore: Double?
  /// Whether this rating caused the content to be blocked.
  public var blocked: Bool?

  /// A rating from its fields.
  public init(category: Gemini.HarmCategory?, probability: Gemini.HarmProbability?, probabilityScore: Double? = nil,
              severity: String? = nil, severityScore: Double? = nil, blocked: Bool? = nil) {
    self.category = category
    self.probability = probability
    self.probabilityScore = probabilityScore
    self.severity = severity
    self.severityScore = severityScore
    self.blocked = blocked
  }
}
