import HybridAI

/// A request to `models/{model}:generateContent` or `:streamGenerateContent`.
///
/// Decoding accepts members in lowerCamelCase and in snake_case (`system_instruction`), as the API
/// does; encoding writes lowerCamelCase and leaves unset members out.
public struct GenerateContentRequest: Sendable, Hashable, Codable {
  /// The conversation, oldest turn first, ending with the user's prompt.
  public var contents: [Gemini.Content]
  /// Instructions for the whole conversation (a content without role).
  public var systemInstruction: Gemini.Content?
  /// How to generate.
  public var generationConfig: GenerationConfig?
  /// Safety filters.
  public var safetySettings: [SafetySetting]?
  /// Tools the model may use.
  public var tools: [Gemini.Tool]?
  /// How the model may use the tools (`functionCallingConfig`, …).
  public var toolConfig: Gemini.ToolConfig?
  /// The name of cached content to use as context (`cachedContents/…`).
  public var cachedContent: String?

  /// A request from its fields.
  public init(contents: [Gemini.Content], systemInstruction: Gemini.Content? = nil,
              generationConfig: GenerationConfig? = nil, safetySettings: [SafetySetting]? = nil,
              tools: [Gemini.Tool]? = nil, toolConfig: Gemini.ToolConfig? = nil, cachedContent: String? = nil) {
    self.contents = contents
    self.systemInstruction = systemInstruction
    self.generationConfig = generationConfig
    self.safetySettings = safetySettings
    self.tools = tools
    self.toolConfig = toolConfig
    self.cachedContent = cachedContent
  }

  private enum CodingKeys: String, CodingKey {
    case contents, systemInstruction, generationConfig, safetySettings, tools, toolConfig, cachedContent
  }

  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: AnyCodingKey.self)
    self.init(
      contents: try c.wire([Gemini.Content].self, "contents") ?? [],
      systemInstruction: try c.wire(Gemini.Content.self, "systemInstruction"),
      generationConfig: try c.wire(GenerationConfig.self, "generationConfig"),
      safetySettings: try c.wire([SafetySetting].self, "safetySettings"),
      tools: try c.wire([Gemini.Tool].self, "tools"),
      toolConfig: try c.wire(Gemini.ToolConfig.self, "toolConfig"),
      cachedContent: try c.wire(String.self, "cachedContent"))
  }
}
