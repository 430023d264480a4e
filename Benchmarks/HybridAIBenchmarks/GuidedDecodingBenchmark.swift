import Foundation
import HybridAI
import HybridAIOnDevice

/// Guided (schema-constrained) decoding vs free decoding on the same model and prompt, how often
/// sampled structured answers complete with and without the loop penalty, and the time to compile
/// JSON Schemas into grammars.
///
/// - Decode: a fresh session answers the same prompt greedily, once free and once constrained by
///   a schema that keeps the answer long; rate = tokens after the first / time after the first.
///   Rounds alternate the two, and medians are compared (target: guided ≥ 0.8× free).
/// - Compile: ``JSONSchemaGrammarCompiler`` on schemas of growing size, median of many runs.
public struct GuidedDecodingBenchmark: Sendable {
  public struct Settings: Sendable {
    public var model: SystemLanguageModel
    public var generatedTokens = 160
    public var repetitions = 5
    public var compileRuns = 200

    public init(model: SystemLanguageModel) { self.model = model }
  }

  public let settings: Settings
  let progress: @Sendable (String) -> Void

  public init(settings: Settings, progress: @escaping @Sendable (String) -> Void = { _ in }) {
    self.settings = settings
    self.progress = progress
  }

  static let prompt = "Invent a catalogue of six products for a small bakery, with a name and a one-sentence description each. Answer in JSON."

  /// Six products with a name and a description each: long enough to measure decode speed.
  static let catalogueSchema: JSONValue = [
    "type": "object",
    "properties": [
      "products": [
        "type": "array", "minItems": 6, "maxItems": 6,
        "items": [
          "type": "object",
          "properties": ["name": ["type": "string", "maxLength": 32], "description": ["type": "string", "maxLength": 120],
                         "price": ["type": "number", "minimum": 0, "maximum": 100]],
          "required": ["name", "description", "price"], "additionalProperties": false,
        ],
      ],
    ],
    "required": ["products"], "additionalProperties": false,
  ]

  public func run() async throws -> BenchmarkReport {
    var report = BenchmarkReport(title: "Guided decoding — \(settings.model.modelIdentifier), \(settings.model.configuration.threads) threads")
    report.notes.append("model on \(settings.model.placementText)")
    var free: [Double] = [], guided: [Double] = [], guidedTokens: [Double] = []
    for round in 1...max(1, settings.repetitions) {
      progress("round \(round)/\(settings.repetitions): free and schema-constrained decode (\(settings.generatedTokens) tokens)")
      free.append(try await measureFreeDecode())
      let (rate, tokens) = try await measureGuidedDecode()
      guided.append(rate)
      guidedTokens.append(Double(tokens))
    }
    report.rows.append(.init(metric: "decode, guided vs free (tokens/s)", ours: guided.median, reference: free.median,
                             target: .atLeast(0.8)))
    report.notes.append("reference = the same model decoding the same prompt without a schema, in the same run; "
      + "guided answers had " + guidedTokens.slashList() + " tokens")
    report.notes.append("per-round tokens/s guided " + guided.slashList() + " free " + free.slashList())

    progress("sampled structured answers, \(Self.completionCases.count) schemas × \(Self.completionSeeds.count) seeds, "
      + "with and without the loop penalty")
    let guarded = try await countCompletedAnswers(loopPenalty: nil)
    let unguarded = try await countCompletedAnswers(loopPenalty: LoopPenalty(multiplier: 0))
    report.rows.append(.init(metric: "sampled structured answers complete within \(Self.completionTokenLimit) tokens (of \(guarded.total))",
                             ours: Double(guarded.completed), reference: Double(unguarded.completed),
                             target: .atLeast(1)))
    report.notes.append("structured answers: temperature 0.7, top-p 0.9, seeds " + Self.completionSeeds.map(String.init).joined(separator: "/")
      + "; ours = the session's default loop penalty for structured answers (DRY 0.8), reference = the same with it off; "
      + "cut at the limit: \(guarded.cutAtLimit) with, \(unguarded.cutAtLimit) without")

    progress("schema → grammar compile time (\(settings.compileRuns) runs per schema)")
    for (name, schema) in Self.compileSchemas {
      let milliseconds = try compileTime(schema)
      report.rows.append(.init(metric: "compile \(name) (ms)", ours: milliseconds, reference: nil, target: .informational))
    }
    return report
  }

  private func measureFreeDecode() async throws -> Double {
    try await measureDecode(responseFormat: nil).rate
  }

  private func measureGuidedDecode() async throws -> (rate: Double, tokens: Int) {
    try await measureDecode(responseFormat: ResponseFormat(
      schema: GenerationSchema(jsonSchema: Self.catalogueSchema), includeSchemaInPrompt: false))
  }

  /// One fresh generation through the model itself (the answer may stop at the token limit, so it
  /// is not decoded): decode rate after the first token, and tokens generated.
  private func measureDecode(responseFormat: ResponseFormat?) async throws -> (rate: Double, tokens: Int) {
    let options = GenerationOptions(sampling: .greedy, maximumResponseTokens: settings.generatedTokens)
    let request = GenerationRequest(
      transcript: Transcript(entries: [.prompt(.init(text: Self.prompt, options: options, responseFormat: responseFormat))]),
      options: options, responseFormat: responseFormat)
    var completion: RawResponse?
    for try await event in settings.model.generate(request) {
      if case .completed(let raw) = event { completion = raw }
    }
    guard let completion, let rate = completion.timings?.generationTokensPerSecond, completion.usage.outputTokens >= 32 else {
      throw BenchmarkError.tooFewTokens(completion?.usage.outputTokens ?? 0)
    }
    return (rate, completion.usage.outputTokens)
  }

  static let compileSchemas: [(String, JSONValue)] = [
    ("a flat object of 3 properties", [
      "type": "object", "properties": ["name": ["type": "string"], "age": ["type": "integer"], "member": ["type": "boolean"]],
      "required": ["name", "age", "member"],
    ]),
    ("the catalogue schema (nested array, ranges)", catalogueSchema),
    ("20 properties with patterns, enums and ranges", .object([
      "type": "object",
      "properties": .object(Dictionary(uniqueKeysWithValues: (0..<20).map { index -> (String, JSONValue) in
        switch index % 4 {
        case 0: ("code\(index)", ["type": "string", "pattern": "^[A-Z]{2}-[0-9]{3,5}$"])
        case 1: ("kind\(index)", ["type": "string", "enum": ["alpha", "beta", "gamma", "delta"]])
        case 2: ("count\(index)", ["type": "integer", "minimum": -250, "maximum": 1999])
        default: ("tags\(index)", ["type": "array", "items": ["type": "string", "maxLength": 12], "minItems": 1, "maxItems": 5])
        }
      })),
    ])),
  ]

  private func compileTime(_ schema: JSONValue) throws -> Double {
    let compiler = JSONSchemaGrammarCompiler()
    var times: [Double] = []
    for _ in 0..<settings.compileRuns {
      let started = ContinuousClock.now
      _ = try compiler.compile(schema)
      times.append((ContinuousClock.now - started).seconds * 1000)
    }
    return times.median
  }
}
