import Foundation
import HybridAI

/// How often sampled structured answers complete within a token limit, with the loop penalty a
/// session gives structured answers by default and without it: a string the grammar keeps open
/// can otherwise repeat itself until the limit.
extension GuidedDecodingBenchmark {
  /// Schemas of everyday shapes (records, lists, enums, nested objects) with the prompt for each.
  static let completionCases: [(name: String, prompt: String, schema: JSONValue)] = [
    ("recipe", "Give me a simple pancake recipe.", [
      "type": "object",
      "properties": ["title": ["type": "string"], "servings": ["type": "integer", "minimum": 1, "maximum": 12],
                     "ingredients": ["type": "array", "items": ["type": "string"], "minItems": 2, "maxItems": 8]],
      "required": ["title", "servings", "ingredients"],
    ]),
    ("contact", "Make up a contact card for a plumber in Lyon.", [
      "type": "object",
      "properties": ["name": ["type": "string"], "phone": ["type": "string"],
                     "address": ["type": "object",
                                 "properties": ["street": ["type": "string"], "city": ["type": "string"]],
                                 "required": ["street", "city"]]],
      "required": ["name", "phone", "address"],
    ]),
    ("review", "Review the film The Matrix in one sentence and rate it.", [
      "type": "object",
      "properties": ["summary": ["type": "string"], "rating": ["type": "integer", "minimum": 1, "maximum": 5],
                     "recommended": ["type": "boolean"]],
      "required": ["summary", "rating", "recommended"],
    ]),
    ("event", "Invent a meetup about gardening next spring.", [
      "type": "object",
      "properties": ["title": ["type": "string"], "date": ["type": "string"], "location": ["type": "string"],
                     "topics": ["type": "array", "items": ["type": "string"], "maxItems": 4]],
      "required": ["title", "date", "location", "topics"],
    ]),
    ("ticket", "A customer says the app crashes when uploading photos. File a ticket.", [
      "type": "object",
      "properties": ["title": ["type": "string"], "severity": ["type": "string", "enum": ["low", "medium", "high"]],
                     "steps": ["type": "array", "items": ["type": "string"], "minItems": 1, "maxItems": 5]],
      "required": ["title", "severity", "steps"],
    ]),
    ("answer", "Why is the sky blue? Answer with a short explanation and a confidence.", [
      "type": "object",
      "properties": ["explanation": ["type": "string"], "confidence": ["type": "number", "minimum": 0, "maximum": 1]],
      "required": ["explanation", "confidence"],
    ]),
  ]

  /// The seeds each case is sampled with.
  static let completionSeeds: [UInt64] = [1, 2, 3]

  /// The token limit of each answer.
  static let completionTokenLimit = 200

  /// Counts the answers that complete (valid JSON following the schema) with `loopPenalty`
  /// (`nil`: the session's default), and the ones cut at the token limit.
  func countCompletedAnswers(loopPenalty: LoopPenalty?) async throws -> (completed: Int, cutAtLimit: Int, total: Int) {
    var completed = 0, cutAtLimit = 0, total = 0
    for (name, prompt, schema) in Self.completionCases {
      for seed in Self.completionSeeds {
        total += 1
        let session = GenerativeModelSession(model: settings.model)
        let options = GenerationOptions(sampling: .random(probabilityThreshold: 0.9, seed: seed),
                                        maximumResponseTokens: Self.completionTokenLimit, loopPenalty: loopPenalty)
        do {
          _ = try await session.respond(to: prompt, schema: GenerationSchema(jsonSchema: schema), options: options)
          completed += 1
        } catch GenerationError.exceededTokenLimit {
          cutAtLimit += 1
          progress("\(name), seed \(seed): reached \(Self.completionTokenLimit) tokens"
            + (loopPenalty == nil ? "" : " (loop penalty off)"))
        }
      }
    }
    return (completed, cutAtLimit, total)
  }
}
