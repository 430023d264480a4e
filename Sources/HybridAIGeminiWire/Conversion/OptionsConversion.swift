import HybridAI

extension GenerationConfig {
  /// The configuration a Gemini request uses for `options`: the attached ``GenerationConfig``
  /// (`options[GenerationConfig.self]`, set by `.gemini(…)` or `.hybrid(gemini:onDevice:)`) as it
  /// is, or else the generic options meant for cloud models mapped onto Gemini's fields; `nil`
  /// when nothing is set.
  ///
  /// | generic option | Gemini field |
  /// |---|---|
  /// | `temperature` | `temperature` |
  /// | `sampling: .greedy` | `temperature: 0`, `topK: 1` |
  /// | `sampling: .random(top: k, seed:)` | `topK: k`, `seed` |
  /// | `sampling: .random(probabilityThreshold: p, seed:)` | `topP: p`, `seed` |
  /// | `maximumResponseTokens` | `maxOutputTokens` |
  /// | `frequencyPenalty`, `presencePenalty` | `frequencyPenalty`, `presencePenalty` |
  /// | `repetitionPenalty` | — (on-device only; not sent) |
  /// | `stopSequences` | `stopSequences` |
  /// | `logProbabilities: n` | `responseLogprobs: true`, `logprobs: n` (none for 0) |
  /// | `responseModalities` | `responseModalities` (`TEXT`, `IMAGE`, `AUDIO`), also into an attached configuration that sets none |
  ///
  /// Seeds are 64-bit in HybridAI and 32-bit in Gemini: the low 32 bits are sent.
  public static func forRequest(_ options: GenerationOptions) -> GenerationConfig? {
    if var config = options[GenerationConfig.self] {
      if config.responseModalities == nil, let modalities = options.responseModalities {
        config.responseModalities = Self.wireModalities(modalities)
      }
      return config
    }
    let config = GenerationConfig(generic: options.genericOptions(for: .cloud))
    return config == GenerationConfig() ? nil : config
  }

  /// The most candidates (`candidateCount`) a Gemini-compatible server answers side by side.
  public static let maximumCandidates = 16

  /// Gemini's names of `modalities` (`TEXT`, `IMAGE`, `AUDIO`), `nil` for text alone (the default).
  static func wireModalities(_ modalities: Set<Modality>) -> [String]? {
    guard !modalities.subtracting([.text]).isEmpty else { return nil }
    return Gemini.modalityNames(modalities.union([.text]))
  }

  /// Gemini's fields for HybridAI's generic options (see ``forRequest(_:)``).
  public init(generic options: GenerationOptions) {
    self.init(temperature: options.temperature, maxOutputTokens: options.maximumResponseTokens,
              presencePenalty: options.presencePenalty, frequencyPenalty: options.frequencyPenalty,
              stopSequences: options.stopSequences.isEmpty ? nil : options.stopSequences)
    if let modalities = options.responseModalities { responseModalities = Self.wireModalities(modalities) }
    if let alternatives = options.logProbabilities {
      responseLogprobs = true
      logprobs = alternatives > 0 ? alternatives : nil
    }
    switch options.sampling?.strategy {
    case .greedy?:
      temperature = 0
      topK = 1
    case .topK(let k, let seed)?:
      topK = k
      self.seed = seed.map { Int(Int32(truncatingIfNeeded: $0)) }
    case .nucleus(let threshold, let seed)?:
      topP = threshold
      self.seed = seed.map { Int(Int32(truncatingIfNeeded: $0)) }
    case nil:
      break
    }
  }
}

extension GenerationOptions {
  /// HybridAI's generic options for a Gemini configuration (what a Gemini-compatible server
  /// hands its on-device model), with the configuration itself attached
  /// (`options[GenerationConfig.self]`) for the fields that have no generic counterpart
  /// (`responseMimeType`, `responseJsonSchema`, `thinkingConfig`, …).
  ///
  /// `topK` becomes `.random(top:)`, else `topP` becomes `.random(probabilityThreshold:)`, else
  /// a `seed` alone samples the whole distribution (each repeatable with the seed); `topK: 1` is
  /// greedy; a `candidateCount` outside 1…16 is refused (the server answers each candidate side by side); `frequencyPenalty` and `presencePenalty` (`-2…2`) are kept;
  /// `responseLogprobs` with `logprobs` (`0…20`) becomes ``HybridAI/GenerationOptions/logProbabilities``; `responseModalities` become ``HybridAI/GenerationOptions/responseModalities``
  /// (so a served model that answers with text only refuses `IMAGE`). The options apply to every model (`appliesTo` is `nil`).
  ///
  /// - Throws: ``GeminiConversionError/invalidOption(_:)`` for out-of-range values.
  public init(geminiConfig config: GenerationConfig) throws {
    self.init(temperature: config.temperature, maximumResponseTokens: config.maxOutputTokens,
              frequencyPenalty: config.frequencyPenalty, presencePenalty: config.presencePenalty,
              stopSequences: config.stopSequences ?? [])
    if let invalid = invalidOption { throw GeminiConversionError.invalidOption(invalid) }
    if let temperature = config.temperature, !(0...2).contains(temperature) {
      throw GeminiConversionError.invalidOption("temperature \(temperature) is outside 0…2")
    }
    if let maxOutputTokens = config.maxOutputTokens, maxOutputTokens < 1 {
      throw GeminiConversionError.invalidOption("maxOutputTokens must be positive, got \(maxOutputTokens)")
    }
    let seed = config.seed.map { UInt64(bitPattern: Int64($0)) }
    if let topK = config.topK {
      guard topK >= 1 else { throw GeminiConversionError.invalidOption("topK must be positive, got \(topK)") }
      sampling = topK == 1 ? .greedy : .random(top: topK, seed: seed)
    } else if let topP = config.topP {
      guard (0...1).contains(topP) else { throw GeminiConversionError.invalidOption("topP \(topP) is outside 0…1") }
      sampling = .random(probabilityThreshold: topP, seed: seed)
    } else if let seed {
      sampling = .random(probabilityThreshold: 1, seed: seed)
    }
    if let alternatives = config.logprobs {
      guard config.responseLogprobs == true else {
        throw GeminiConversionError.invalidOption("logprobs is set but responseLogprobs is not true")
      }
      guard (0...TokenLogProbability.maximumAlternatives).contains(alternatives) else {
        throw GeminiConversionError.invalidOption("logprobs must be within 0…\(TokenLogProbability.maximumAlternatives), got \(alternatives)")
      }
    }
    if config.responseLogprobs == true { logProbabilities = config.logprobs ?? 0 }
    if let count = config.candidateCount, !(1...GenerationConfig.maximumCandidates).contains(count) {
      throw GeminiConversionError.invalidOption("candidateCount must be between 1 and \(GenerationConfig.maximumCandidates), got \(count)")
    }
    if let names = config.responseModalities, !names.isEmpty {
      responseModalities = Set(try names.map { name in
        guard let modality = Modality(rawValue: name.lowercased()), modality != .document else {
          throw GeminiConversionError.invalidOption("responseModalities has \(name); expected TEXT, IMAGE or AUDIO")
        }
        return modality
      })
    }
    self[GenerationConfig.self] = config
  }
}
