import HybridAI
@testable import HybridAIOnDevice
import Testing

/// Which grammar a request gets from its tools, tool choice and response schema; each grammar is
/// checked against llama.cpp's own parser and the real vocabulary.
@Suite struct DecodingGuidanceTests {
  static let add = ToolDefinition(name: "add", description: "Adds", parameters: GenerationSchema(jsonSchema: [
    "type": "object", "properties": ["a": ["type": "integer"], "b": ["type": "integer"]], "required": ["a", "b"],
  ]))
  static let time = ToolDefinition(name: "now", description: "Time", parameters: GenerationSchema(jsonSchema: ["type": "object"]))
  static let schema = ResponseFormat(schema: GenerationSchema(jsonSchema: ["type": "object", "properties": ["ok": ["type": "boolean"]], "required": ["ok"]]))

  func guidance(tools: [ToolDefinition] = [], choice: ToolChoice? = nil, format: ResponseFormat? = nil) throws -> DecodingGuidance? {
    try DecodingGuidance.make(for: GenerationRequest(
      transcript: Transcript(), options: GenerationOptions(toolChoice: choice), tools: tools, responseFormat: format))
  }

  /// Feeds `text` through the grammar token by token; whether all of it was allowed.
  func accepts(_ guidance: DecodingGuidance, _ text: String) throws -> Bool {
    let weights = try LlamaModelWeights(path: TestModel.path)
    let grammar = try LlamaGrammar(gbnf: guidance.grammar, vocab: weights.vocab)
    for token in try weights.tokenize(text, addSpecial: false, parseSpecial: false) {
      guard grammar.accept(token) else { return false }
    }
    return true
  }

  @Test func freeTextWithoutToolsOrSchemaHasNoGrammar() throws {
    #expect(try guidance() == nil)
  }

  @Test func toolsOfferCallsOrAnAnswer() throws {
    let guided = try #require(try guidance(tools: [Self.add, Self.time]))
    #expect(guided.offersTools && guided.answerIsFreeText)
    #expect(try accepts(guided, "<tool_call>\n{\"name\": \"add\", \"arguments\": {\"a\":1,\"b\":2}}\n</tool_call>"))
    #expect(try accepts(guided, "<tool_call>\n{\"name\": \"now\", \"arguments\": {}}\n</tool_call>\n<tool_call>\n{\"name\": \"now\", \"arguments\": {}}\n</tool_call>"))
    #expect(try accepts(guided, "Hello <b>there</b>"))
    #expect(try !accepts(guided, "<tool_call>\n{\"name\": \"delete\", \"arguments\": {}}"))        // unknown tool
    #expect(try !accepts(guided, "<tool_call>\n{\"name\": \"add\", \"arguments\": {\"a\":\"x\""))   // wrong argument type
    #expect(try !accepts(guided, "<tool_response>"))
    #expect(try !accepts(guided, " leading space"))
  }

  @Test func requiredAllowsOnlyCallsOfTheNamedTools() throws {
    let guided = try #require(try guidance(tools: [Self.add, Self.time], choice: .required(tools: ["now"])))
    #expect(!guided.answerIsFreeText)
    #expect(try accepts(guided, "<tool_call>\n{\"name\": \"now\", \"arguments\": {}}\n</tool_call>"))
    #expect(try !accepts(guided, "<tool_call>\n{\"name\": \"add\""))
    #expect(try !accepts(guided, "Sure"))
    #expect(throws: SchemaGrammarError.self) { try guidance(tools: [Self.add], choice: .required(tools: ["missing"])) }
  }

  @Test func toolsWithASchemaAnswerWithJSON() throws {
    let guided = try #require(try guidance(tools: [Self.add], format: Self.schema))
    #expect(try accepts(guided, #"{"ok":true}"#))
    #expect(try accepts(guided, "<tool_call>\n{\"name\": \"add\", \"arguments\": {\"a\":1,\"b\":2}}\n</tool_call>"))
    #expect(try !accepts(guided, "Sure"))
  }

  @Test func noneAnswersWithTextThatDoesNotLookLikeToolMarkup() throws {
    let guided = try #require(try guidance(tools: [Self.add], choice: ToolChoice.none))
    #expect(!guided.offersTools && guided.answerIsFreeText)
    #expect(try accepts(guided, "The sum is 3."))
    #expect(try !accepts(guided, "<tool_response>"))
  }
}
