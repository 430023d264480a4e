import Foundation
import HybridAI
@testable import HybridAIOnDevice
import HybridAITestSupport
import Testing

/// Structured output with the real SmolLM2 model: every answer is valid for its schema, because
/// decoding is constrained by the grammar compiled from it.
@Suite(.serialized) struct GuidedGenerationTests {
  struct Case: Sendable, CustomTestStringConvertible {
    let name: String
    let prompt: String
    let schema: JSONValue
    var testDescription: String { name }
  }

  static let cases: [Case] = [
    Case(name: "flat object", prompt: "Describe a cat.", schema: [
      "type": "object", "properties": ["name": ["type": "string", "maxLength": 20], "age": ["type": "integer"]],
      "required": ["name", "age"], "additionalProperties": false,
    ]),
    Case(name: "nested objects", prompt: "Describe a person and their home address.", schema: [
      "type": "object",
      "properties": [
        "person": ["type": "object", "properties": ["first": ["type": "string", "maxLength": 16], "last": ["type": "string", "maxLength": 16]],
                   "required": ["first", "last"]],
        "address": ["type": "object", "properties": ["city": ["type": "string", "maxLength": 20], "zip": ["type": "string", "pattern": "[0-9]{5}"]],
                    "required": ["city", "zip"]],
      ],
      "required": ["person", "address"],
    ]),
    Case(name: "array with exact count", prompt: "List three fruits.", schema: [
      "type": "object", "properties": ["fruits": ["type": "array", "items": ["type": "string", "maxLength": 12], "minItems": 3, "maxItems": 3]],
      "required": ["fruits"],
    ]),
    Case(name: "array with a count range", prompt: "Give some prime numbers.", schema: [
      "type": "array", "items": ["type": "integer", "minimum": 2, "maximum": 97], "minItems": 2, "maxItems": 4,
    ]),
    Case(name: "string enum", prompt: "Is the sky blue? Answer with your mood.", schema: [
      "type": "object", "properties": ["mood": ["type": "string", "enum": ["happy", "sad", "neutral"]]], "required": ["mood"],
    ]),
    Case(name: "optional properties", prompt: "Describe a book.", schema: [
      "type": "object",
      "properties": ["title": ["type": "string", "maxLength": 30], "subtitle": ["type": "string", "maxLength": 30],
                     "pages": ["type": "integer", "minimum": 1, "maximum": 2000]],
      "required": ["title"], "propertyOrdering": ["title", "subtitle", "pages"],
    ]),
    Case(name: "integer range", prompt: "Rate pizza from 1 to 5.", schema: [
      "type": "object", "properties": ["rating": ["type": "integer", "minimum": 1, "maximum": 5]], "required": ["rating"],
    ]),
    Case(name: "negative integer range", prompt: "What is the temperature in Antarctica?", schema: [
      "type": "object", "properties": ["celsius": ["type": "integer", "minimum": -90, "maximum": -10]], "required": ["celsius"],
    ]),
    Case(name: "number range", prompt: "How likely is rain tomorrow?", schema: [
      "type": "object", "properties": ["probability": ["type": "number", "minimum": 0, "maximum": 1]], "required": ["probability"],
    ]),
    Case(name: "pattern", prompt: "Make up a product code.", schema: [
      "type": "object", "properties": ["code": ["type": "string", "pattern": "^[A-Z]{3}-[0-9]{4}$"]], "required": ["code"],
    ]),
    Case(name: "booleans and nullable", prompt: "Is water wet?", schema: [
      "type": "object", "properties": ["answer": ["type": "boolean"], "reason": ["type": ["string", "null"], "maxLength": 40]],
      "required": ["answer", "reason"],
    ]),
    Case(name: "anyOf", prompt: "Give a shape.", schema: [
      "anyOf": [
        ["type": "object", "properties": ["circle": ["type": "number", "minimum": 0, "maximum": 100]], "required": ["circle"]],
        ["type": "object", "properties": ["square": ["type": "integer", "minimum": 0, "maximum": 100]], "required": ["square"]],
      ],
    ]),
  ]

  static let seeds: [UInt64?] = [nil, 7]   // greedy, then a seeded random sample

  @Test(arguments: cases, seeds)
  func answersAreAlwaysValidForTheSchema(_ testCase: Case, seed: UInt64?) async throws {
    let model = try TestModel.requireModel()
    let session = GenerativeModelSession(model: model)
    let sampling: GenerationOptions.SamplingMode = seed.map { .random(top: 40, seed: $0) } ?? .greedy
    let response = try await session.respond(
      to: testCase.prompt, schema: GenerationSchema(jsonSchema: testCase.schema),
      options: GenerationOptions(sampling: sampling, maximumResponseTokens: 160))
    let violations = JSONSchemaValidator(schema: testCase.schema).validate(response.content.jsonValue)
    #expect(violations.isEmpty, "\(response.rawContent) violates \(violations)")
    #expect(response.finishReason == .stop, "the grammar should end the answer: \(response.rawContent)")
  }

  @Test func streamedSnapshotsArePrefixesOfTheFinalAnswer() async throws {
    let model = try TestModel.requireModel()
    let session = GenerativeModelSession(model: model)
    let schema = Self.cases[2].schema
    let stream = session.streamResponse(
      to: "List three fruits.", schema: GenerationSchema(jsonSchema: schema),
      options: GenerationOptions(sampling: .greedy, maximumResponseTokens: 80))
    var snapshots: [GenerativeModelSession.ResponseStream<GeneratedContent>.Snapshot] = []
    for try await snapshot in stream { snapshots.append(snapshot) }
    let response = try await stream.collect()
    #expect(!snapshots.isEmpty)
    for snapshot in snapshots {
      #expect(response.rawContent.hasPrefix(snapshot.rawContent))
      // Each partial value is the parse of its raw text so far.
      #expect(snapshot.content == GeneratedContent(partialJSON: snapshot.rawContent))
    }
    #expect(snapshots.last?.content.isComplete == true || snapshots.last?.rawContent != response.rawContent)
  }

  @Test func aSchemaTheGrammarCannotExpressIsRejectedUpFront() async throws {
    let model = try TestModel.requireModel()
    let schema = GenerationSchema(jsonSchema: ["type": "string", "pattern": "(a)\\1"])   // a backreference
    let request = GenerationRequest(
      transcript: Transcript(entries: [.prompt(.init(text: "Hi", responseFormat: ResponseFormat(schema: schema)))]),
      options: GenerationOptions(), responseFormat: ResponseFormat(schema: schema))
    guard case .unsupported(.unsupportedSchema(let reason)) = await model.supports(request) else {
      Issue.record("expected unsupportedSchema")
      return
    }
    #expect(!reason.isEmpty)
    let session = GenerativeModelSession(model: model)
    await #expect(throws: GenerationError.self) {
      try await session.respond(to: "Hi", schema: schema)
    }
    #expect(session.transcript.isEmpty)
  }
}

extension GuidedGenerationTests {
  @Test func aHybridFallsBackToTheCloudForASchemaTheDeviceCannotEnforce() async throws {
    let onDevice = try TestModel.requireModel()
    // Google's servers can't be reached here; the real cloud path is tested in HybridAIGeminiTests and HybridAIServerTests.
    let cloud = ScriptedLanguageModel(identifier: "fixed-json-cloud", source: .cloud, deltas: [#"{"word":"aa"}"#])
    let session = GenerativeModelSession(model: .hybrid(primary: onDevice, secondary: cloud))
    let schema = GenerationSchema(jsonSchema: [
      "type": "object", "properties": ["word": ["type": "string", "pattern": "(a)\\1"]], "required": ["word"],
    ])
    let response = try await session.respond(to: "A word", schema: schema)
    #expect(response.rawResponse.source == .cloud)
    guard case .unsupported(let reason)? = response.rawResponse.fallback?.reason else {
      Issue.record("expected an 'unsupported' fallback, got \(String(describing: response.rawResponse.fallback))")
      return
    }
    #expect(reason.contains("schema"))
    #expect(try response.content.value(String.self, forProperty: "word") == "aa")
  }
}
