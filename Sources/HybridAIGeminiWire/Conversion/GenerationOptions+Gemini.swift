import HybridAI

extension GenerationConfig: ModelSpecificOptions {
  /// `gemini`: the key under which a ``GenerationConfig`` rides in ``HybridAI/GenerationOptions``.
  public static let optionsKey = "gemini"
}

extension Gemini.ToolConfig: ModelSpecificOptions {
  /// `gemini.toolConfig`: the key under which a ``Gemini/ToolConfig`` rides in
  /// ``HybridAI/GenerationOptions``.
  public static let optionsKey = "gemini.toolConfig"
}

extension GenerationOptions {
  /// Options for the Gemini (cloud) model only: `config` goes to Gemini as it is; an on-device
  /// model in the same hybrid session uses its defaults.
  ///
  /// ```swift
  /// try await session.respond(to: "Why is the sky blue?",
  ///                           options: .gemini(GenerationConfig(temperature: 0.8, topP: 0.9)))
  /// // Let Gemini validate every function call against its schema:
  /// try await session.respond(to: "Weather in Paris?", options: .gemini(
  ///   toolConfig: Gemini.ToolConfig(functionCallingConfig: .init(mode: .validated))))
  /// ```
  ///
  /// - Parameters:
  ///   - config: the `generationConfig`. Its `responseMimeType` / `responseSchema` /
  ///     `responseJsonSchema`, when set, win over the session's response format.
  ///   - toolConfig: the `toolConfig`, sent as it is instead of the one derived from
  ///     ``HybridAI/GenerationOptions/toolChoice`` (only when the session has tools).
  public static func gemini(_ config: GenerationConfig = GenerationConfig(),
                            toolConfig: Gemini.ToolConfig? = nil) -> GenerationOptions {
    var options = GenerationOptions()
    options.appliesTo = .cloud
    if config != GenerationConfig() { options[GenerationConfig.self] = config }
    options[Gemini.ToolConfig.self] = toolConfig
    return options
  }

  /// Options for both models of a hybrid session: `gemini` (and `toolConfig`) for the cloud model,
  /// `onDevice`'s sampling, temperature, token limit, stop sequences and tool choice for the
  /// on-device model.
  ///
  /// ```swift
  /// options: .hybrid(
  ///   gemini: GenerationConfig(temperature: 0.8, topP: 0.9, thinkingConfig: ThinkingConfig(thinkingLevel: .high)),
  ///   onDevice: GenerationOptions(sampling: .random(probabilityThreshold: 0.9), temperature: 0.8))
  /// ```
  ///
  /// `onDevice.toolChoice` is about the session's tools, so it applies to the cloud model too
  /// unless `toolConfig` is given.
  public static func hybrid(gemini: GenerationConfig, toolConfig: Gemini.ToolConfig? = nil,
                            onDevice: GenerationOptions) -> GenerationOptions {
    var options = onDevice
    options.appliesTo = .onDevice
    options[GenerationConfig.self] = gemini
    options[Gemini.ToolConfig.self] = toolConfig
    return options
  }
}
