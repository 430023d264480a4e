import Foundation
import HybridAI
import Synchronization

/// The grammar a request's answer must follow, built from its response schema, its tools and the
/// tool choice; `nil` when the answer is free text.
///
/// - A schema alone: the answer is JSON for the schema.
/// - Tools: the answer is either tool calls in ``ToolCallFormat`` (at most
///   ``ToolCallFormat/maximumCallsPerTurn``, each with arguments valid for its tool) or an answer:
///   JSON for the schema when there is one, otherwise free text that does not start with `<` or
///   whitespace. With ``ToolChoice/required(tools:)`` only calls (of the named tools) are allowed;
///   with ``ToolChoice/none`` only the answer is (free text still may not start with `<`).
///
/// When the model's own template writes the tools (``TranscriptRendering/ToolStyle/native``), the
/// guidance comes from its rendering instead (``native(_:weights:)``): common's grammar for the
/// model's tool-call syntax, usually lazy (free text until a call starts), and its parser.
struct DecodingGuidance: Sendable, Hashable {
  /// GBNF text whose start rule is `root`; empty for no grammar.
  let grammar: String
  /// Whether the answer may be tool calls.
  let offersTools: Bool
  /// Whether the answer branch is free text, so the grammar can be dropped once the answer has
  /// started (it accepts any text from there).
  let answerIsFreeText: Bool
  /// The model's own tool-call format: its rendering parses the answer. `nil`: ``ToolCallFormat``.
  var nativeToolCalls: ChatRendering? = nil
  /// Set for a lazy grammar: what makes it start to constrain.
  var lazyTriggers: LazyGrammarTriggers? = nil
  /// Text the grammar reads before the first generated token (the generation prompt a model's
  /// tool-call grammar begins with).
  var grammarPrefill: String? = nil

  /// The guidance of a request rendered with tools in the model's own format. With
  /// `callsRequired` (``ToolChoice/required(tools:)``) the answer starts with the calls: common's
  /// grammar lets text come first (`root ::= … until-N? tool-calls`), which a small model fills
  /// until its token limit, so that optional preamble is taken out of the start rule.
  static func native(_ rendering: ChatRendering, callsRequired: Bool = false) -> DecodingGuidance {
    let details = rendering.details
    var grammar = details.grammar
    if callsRequired, !details.grammar_lazy {
      grammar = grammar.split(separator: "\n", omittingEmptySubsequences: false).map { line in
        guard line.hasPrefix("root ::= ") else { return String(line) }
        return String(line.replacing(#/\s+until-[0-9]+\?/#, with: ""))
      }.joined(separator: "\n")
    }
    var triggers = LazyGrammarTriggers(patterns: [], tokens: [])
    for trigger in details.grammar_triggers {
      switch trigger.type {
      case "token": triggers.tokens.append(trigger.token)
      case "word": triggers.patterns.append(NSRegularExpression.escapedPattern(for: trigger.value))
      case "pattern_full":
        let pattern = trigger.value
        triggers.patterns.append((pattern.hasPrefix("^") ? "" : "^") + pattern + (pattern.hasSuffix("$") ? "" : "$"))
      default: triggers.patterns.append(trigger.value)
      }
    }
    return DecodingGuidance(
      grammar: grammar, offersTools: true, answerIsFreeText: false, nativeToolCalls: rendering,
      lazyTriggers: details.grammar_lazy ? triggers : nil,
      grammarPrefill: details.grammar_lazy || details.grammar.isEmpty ? nil : details.generation_prompt)
  }

  static func make(for request: GenerationRequest) throws(SchemaGrammarError) -> DecodingGuidance? {
    let toolChoice = request.options.toolChoice ?? .automatic
    var tools = request.tools
    switch toolChoice {
    case .none: tools = []
    case .required(let names?): tools = tools.filter { names.contains($0.name) }
    case .required(nil), .automatic: break
    }
    let schema = request.responseFormat?.schema
    if tools.isEmpty {
      if case .required = toolChoice, !request.tools.isEmpty {
        throw .invalidSchema(path: "toolChoice", reason: "none of the required tools is offered")
      }
      if let schema {
        return DecodingGuidance(grammar: try compiler.compile(schema.jsonSchema), offersTools: false, answerIsFreeText: false)
      }
      // Tools in the conversation but none callable now: the answer is text, and must not begin
      // like tool markup (small models otherwise echo the last `<tool_response>` block).
      guard !request.tools.isEmpty else { return nil }
      return DecodingGuidance(grammar: "root ::= " + freeTextAnswer, offersTools: false, answerIsFreeText: true)
    }

    var rules: [String] = []
    var callAlternatives: [String] = []
    for (index, tool) in tools.enumerated() {
      let compiled: (rules: String, ruleName: String)
      do {
        compiled = try compiler.compileRule(tool.parameters.jsonSchema, named: "tool\(index)-arguments")
      } catch {
        throw .toolParameters(tool: tool.name, reason: error.description)
      }
      rules.append(compiled.rules)
      let head = "{\"name\": " + JSONValue.string(tool.name).jsonString + ", \"arguments\": "
      callAlternatives.append(Self.literal(head) + " " + compiled.ruleName + " " + Self.literal("}"))
    }
    let call = Self.literal(ToolCallFormat.callOpening) + " ( " + callAlternatives.joined(separator: " | ") + " ) "
      + Self.literal(ToolCallFormat.callClosing)
    rules.append("tool-call ::= " + call)
    let calls = request.options.parallelToolCalls == false ? 1 : ToolCallFormat.maximumCallsPerTurn
    rules.append("tool-calls ::= tool-call" + (calls > 1 ? " ( \"\\n\" tool-call ){0,\(calls - 1)}" : ""))

    var answerIsFreeText = false
    if case .required = toolChoice {
      rules.append("root ::= tool-calls")
    } else if let schema {
      let compiled = try compiler.compileRule(schema.jsonSchema, named: "answer")
      rules.append(compiled.rules)
      rules.append("root ::= tool-calls | " + compiled.ruleName)
    } else {
      answerIsFreeText = true
      rules.append("root ::= tool-calls | " + Self.freeTextAnswer)
    }
    return DecodingGuidance(grammar: rules.joined(separator: "\n"), offersTools: true, answerIsFreeText: answerIsFreeText)
  }

  private static let compiler = JSONSchemaGrammarCompiler(whitespace: .compact)
  /// Free text that does not start with `<` (a tool call) or whitespace.
  private static let freeTextAnswer = #"[^<\x20\t\r\n] .*"#

  /// A GBNF string literal.
  private static func literal(_ text: String) -> String { GrammarRuleSet.quoted(text) }
}

extension DecodingGuidance {
  private struct Key: Hashable {
    let tools: [ToolDefinition]
    let toolChoice: ToolChoice?
    let parallelToolCalls: Bool?
    let schema: GenerationSchema?
  }

  /// Compiled grammars by tools, tool choice and schema: a session asks with the same ones turn
  /// after turn (and `supports` and `generate` of one request both need it).
  private static let cache = Mutex<[Key: DecodingGuidance?]>([:])
  private static let cacheLimit = 64

  /// ``make(for:)``, compiled once per distinct tools, tool choice and schema.
  static func cached(for request: GenerationRequest) throws(SchemaGrammarError) -> DecodingGuidance? {
    guard !request.tools.isEmpty || request.responseFormat != nil else { return nil }
    let key = Key(tools: request.tools, toolChoice: request.options.toolChoice,
                  parallelToolCalls: request.options.parallelToolCalls, schema: request.responseFormat?.schema)
    if let known = cache.withLock({ $0[key] }) { return known }
    let made = try make(for: request)
    cache.withLock { cache in
      if cache.count >= cacheLimit { cache.removeAll() }
      cache[key] = made
    }
    return made
  }
}
