import HybridAI

extension GenerationConfig: ModelSpecificOptions {
  /// `gemini`: the key under which a ``GenerationConfig`` rides in ``HybridAI/GenerationOptions``.
  public static let optionsKey = "gemini"
}

extension GenerationOptions {
  /// Options for the Gemini (cloud) model only: `config` goes to Gemini as it is; an on-device
  /// model in the same hybrid session uses its defaults.
  ///
  /// ```swift
  /// try await session.respond(to: "Why is the sky blue?",
  ///                           options: .gemini(GenerationConfig(temperature: 0.8, topP: 0.9)))
  /// ```
  public static func gemini(_ config: GenerationConfig) -> GenerationOptions {
    var options = GenerationOptions()
    options.appliesTo = .cloud
    options[GenerationConfig.self] = config
    return options
  }

  /// Options for both models of a hybrid session: `gemini` for the cloud model, `onDevice`'s
  /// sampling, temperature, token limit and stop sequences for the on-device model.
  ///
  /// ```swift
  /// options: .hybrid(
  ///   gemini: GenerationConfig(temperature: 0.8, topP: 0.9, thinkingConfig: ThinkingConfig(thinkingLevel: .high)),
  ///   onDevice: GenerationOptions(sampling: .random(probabilityThreshold: 0.9), temperature: 0.8))
  /// ```
  public static func hybrid(gemini: GenerationConfig, onDevice: GenerationOptions) -> GenerationOptions {
    var options = onDevice
    options.appliesTo = .onDevice
    options[GenerationConfig.self] = gemini
    return options
  }
}
