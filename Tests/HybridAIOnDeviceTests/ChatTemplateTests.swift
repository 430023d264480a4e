import Foundation
import HybridAI
@testable import HybridAIOnDevice
import Synchronization
import Testing

/// The GGUF's own Jinja chat template through llama.cpp's `common`: SmolLM2's own template (its
/// default system prompt), a model without a template (ChatML fallback, said so), templates
/// that do not load or fail to render (typed errors), and tools in a model's own format: Qwen 2.5's
/// template on SmolLM2 for a real tool round, Gemma 4's (vocabulary-only GGUF from the pinned
/// llama.cpp source) for its declarations and its call syntax.
@Suite("Chat templates (Jinja)", .serialized)
struct ChatTemplateTests {
  static let noInstructions = Transcript(entries: [.prompt(.init(text: "Hi!"))])

  static func request(_ entries: [Transcript.Entry], tools: [ToolDefinition] = []) -> GenerationRequest {
    GenerationRequest(transcript: Transcript(entries: entries), options: GenerationOptions(), tools: tools)
  }

  @Test("SmolLM2's own template runs: its default system prompt appears only without instructions")
  func modelsOwnTemplate() async throws {
    let model = try TestModel.requireModel()
    let description = try await model.chatTemplateDescription()
    #expect(description.origin == .model)
    #expect(!description.usesNativeToolFormat, "SmolLM2's template has no tool support")
    // The default system prompt is what the GGUF's template says (llama.cpp's pattern matcher left it out).
    let defaultSystemPrompt = try #require(Self.defaultSystemPrompt(in: description.source))

    let bare = try await model.promptText(for: Self.request(Self.noInstructions.entries))
    #expect(bare.contains(defaultSystemPrompt))
    #expect(bare.hasSuffix("<|im_start|>user\nHi!<|im_end|>\n<|im_start|>assistant\n"))

    let withInstructions = try await model.promptText(for: Self.request([
      .instructions(.init(text: "Answer in one word.")), .prompt(.init(text: "Hi!")),
    ]))
    #expect(withInstructions.contains("<|im_start|>system\nAnswer in one word.<|im_end|>"))
    #expect(!withInstructions.contains(defaultSystemPrompt))

    let session = GenerativeModelSession(model: model, instructions: "Answer in one word.")
    let answer = try await session.respond(to: "Say hello.", options: TestModel.greedy)
    #expect(!answer.content.isEmpty)
  }

  @Test("an answer the caller began (a transcript ending with a response) is continued; instructions alone are answered")
  func begunAnswerAndInstructionsAlone() async throws {
    let model = try TestModel.requireModel()
    let question: [Transcript.Entry] = [.instructions(.init(text: "Answer briefly.")), .prompt(.init(text: "What is the capital of France?"))]
    let fresh = try await model.promptText(for: Self.request(question))
    let begun = try await model.promptText(for: Self.request(question + [.response(.init(text: "The capital of France is"))]))
    // The conversation before it as for a new answer, then the begun text, its turn left open.
    #expect(begun == fresh + "The capital of France is", "\(begun)")
    let options = GenerationOptions(sampling: .greedy, maximumResponseTokens: 6)
    let continued = try await Answer.collect(model.generate(GenerationRequest(
      transcript: Transcript(entries: question + [.response(.init(text: "The capital of France is"))]), options: options)))
    #expect(!continued.text.isEmpty && !continued.text.hasPrefix("The capital"), "the continuation only: \(continued.text)")

    let alone = try await model.promptText(for: Self.request([.instructions(.init(text: "Write a haiku about rain."))]))
    #expect(alone.hasSuffix("<|im_start|>system\nWrite a haiku about rain.<|im_end|>\n<|im_start|>assistant\n"), "\(alone)")
    let answered = try await Answer.collect(model.generate(GenerationRequest(
      transcript: Transcript(entries: [.instructions(.init(text: "Write a haiku about rain."))]), options: options)))
    #expect(!answered.text.isEmpty)
  }

  @Test("a model without a template falls back to ChatML, says so, and answers")
  func modelWithoutTemplate() async throws {
    _ = try TestModel.requireModel()
    let directory = try TestModel.scratchDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    // The same weights with the template's key renamed: to llama.cpp, a base model without one.
    let copy = try TestModel.patchedCopy(in: directory, replacing: "tokenizer.chat_template", with: "tokenizer.chat_templatX")
    let model = SystemLanguageModel(modelPath: copy.path, configuration: .init(contextSize: 1024))

    let description = try await model.chatTemplateDescription()
    #expect(description.origin == .fallback)
    #expect(description.source.contains("<|im_start|>"))
    let prompt = try await model.promptText(for: Self.request(Self.noInstructions.entries))
    #expect(prompt == "<|im_start|>user\nHi!<|im_end|>\n<|im_start|>assistant\n")

    let answer = try await GenerativeModelSession(model: model).respond(to: "Say hello.", options: TestModel.greedy)
    #expect(!answer.content.isEmpty)
  }

  @Test("Gemma 3 270M base (no template in its GGUF): the ChatML fallback, said so, answers; llama.cpp's gemma template by name renders Gemma's turns")
  func gemmaBaseModel() async throws {
    let path = TestModel.gemmaPath
    try #require(FileManager.default.fileExists(atPath: path), "\(path) is missing: run scripts/bootstrap (make test does)")
    let model = SystemLanguageModel(modelPath: path, configuration: .init(contextSize: 1024))
    let description = try await model.chatTemplateDescription()
    #expect(description.origin == .fallback && !description.usesNativeToolFormat)
    let prompt = try await model.promptText(for: Self.request(Self.noInstructions.entries))
    // Gemma's vocabulary adds its BOS token; then the ChatML turns, as plain text to this model.
    #expect(prompt == "<bos><|im_start|>user\nHi!<|im_end|>\n<|im_start|>assistant\n", "\(prompt)")
    let answer = try await GenerativeModelSession(model: model).respond(to: "The capital of France is", options: TestModel.greedy)
    #expect(answer.usage.outputTokens > 0, "it answers (a base model may close its turn at once: empty text)")
    #expect(answer.rawResponse.modelVersion.lowercased().contains("gemma"), "\(answer.rawResponse.modelVersion)")
    let counted = try await model.tokenCount(for: Self.request(Self.noInstructions.entries))
    #expect(counted > 0 && counted < 40, "\(counted)")
    // ChatML's markers are plain text to Gemma: the answer stops at them, as at a turn's end
    // (before, it wrote "Name a color.<|im_end|>\n<|im_start|>user\n…" up to its token limit).
    let options = GenerationOptions(sampling: .greedy, maximumResponseTokens: 24)
    let batched = BatchedLanguageModel(modelPath: path, configuration: .init(maxConcurrentSequences: 1, contextSizePerSequence: 512))
    for answering in [model, batched] as [any LanguageModel] {
      let turn = try await GenerativeModelSession(model: answering).respond(to: "Name a color.", options: options)
      #expect(!turn.content.contains("<|im_"), "\(type(of: answering)): \(turn.content)")
      #expect(turn.finishReason == .stop, "\(type(of: answering)): \(turn.finishReason)")
    }

    var configuration = SystemLanguageModel.Configuration(contextSize: 1024)
    configuration.chatTemplate = .named("gemma")
    let named = SystemLanguageModel(modelPath: path, configuration: configuration)
    #expect(try await named.chatTemplateDescription().origin == .configured)
    let gemmaPrompt = try await named.promptText(for: Self.request(Self.noInstructions.entries))
    #expect(gemmaPrompt.contains("<start_of_turn>user\nHi!<end_of_turn>") && gemmaPrompt.hasSuffix("<start_of_turn>model\n"),
            "\(gemmaPrompt)")
    let gemmaAnswer = try await GenerativeModelSession(model: named).respond(to: "Say hello.", options: TestModel.greedy)
    #expect(!gemmaAnswer.content.isEmpty)
  }

  @Test("a Jinja syntax error in the GGUF or in a configured template is invalidChatTemplate with Jinja's message")
  func syntaxErrors() async throws {
    _ = try TestModel.requireModel()
    let directory = try TestModel.scratchDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let broken = try TestModel.patchedCopy(in: directory, replacing: "{% endfor %}", with: "{% endfxr %}")
    let model = SystemLanguageModel(modelPath: broken.path, configuration: .init(contextSize: 1024))
    await #expect {
      _ = try await GenerativeModelSession(model: model).respond(to: "Hi", options: TestModel.greedy)
    } throws: { error in
      guard case OnDeviceModelError.invalidChatTemplate(_, let reason) = error else { return false }
      return reason.contains("endfxr") || reason.lowercased().contains("unknown") || reason.lowercased().contains("expected")
    }

    let configured = SystemLanguageModel(modelPath: TestModel.path, configuration: .init(
      contextSize: 1024, chatTemplate: .jinja("{% for message in messages %}{{ message.content }")))
    await #expect {
      _ = try await configured.chatTemplateDescription()
    } throws: { error in
      if case OnDeviceModelError.invalidChatTemplate = error { return true }
      return false
    }
  }

  @Test("a template that raises while rendering is chatTemplateFailed with its message; the session keeps its transcript")
  func renderFailure() async throws {
    _ = try TestModel.requireModel()
    let template = ChatTemplate.jinja("""
      {% for message in messages %}{% if 'forbidden' in message.content %}{{ raise_exception('no forbidden words here') }}\
      {% endif %}{{ message.content }}{% endfor %}
      """)
    let model = SystemLanguageModel(modelPath: TestModel.path, configuration: .init(contextSize: 1024, chatTemplate: template))
    let session = GenerativeModelSession(model: model, instructions: "Be brief.")
    await #expect {
      _ = try await session.respond(to: "Say a forbidden word.", options: TestModel.greedy)
    } throws: { error in
      guard case OnDeviceModelError.chatTemplateFailed(let reason) = error else { return false }
      return reason.contains("no forbidden words here")
    }
    #expect(session.transcript.count == 1, "only the instructions: the failed turn left nothing behind")
  }

  @Test("Qwen 2.5's template on SmolLM2: tools declared and called in Qwen's own format, the call parsed, the round finished")
  func nativeToolRound() async throws {
    _ = try TestModel.requireModel()
    let source = try String(contentsOf: try TestModel.llamaCppTemplate("Qwen-Qwen2.5-7B-Instruct.jinja"), encoding: .utf8)
    let model = SystemLanguageModel(modelPath: TestModel.path, configuration: .init(contextSize: 2048, chatTemplate: .jinja(source)))
    #expect(try await model.chatTemplateDescription().usesNativeToolFormat)

    let weather = WeatherTool()
    let instructions = Transcript.Entry.instructions(.init(text: "You answer questions about the weather."))
    let prompt = try await model.promptText(for: Self.request(
      [instructions, .prompt(.init(text: "What is the weather in Paris?"))], tools: [weather.definition]))
    #expect(prompt.contains("<tools>"), "Qwen's template declares the tools itself")
    #expect(prompt.contains("get_weather"))
    #expect(!prompt.contains("You can call tools."), "HybridAI's documented tool prompt is not used")

    let session = GenerativeModelSession(model: model, tools: [weather], instructions: "You answer questions about the weather.",
                                         toolPolicy: ToolExecutionPolicy(maximumRounds: 1, limit: .answerWithoutTools))
    let options = GenerationOptions(sampling: .greedy, maximumResponseTokens: 64, toolChoice: .required())
    let response = try await session.respond(to: "What is the weather in Paris?", options: options)
    let call = try #require(response.transcriptEntries.lazy.compactMap { entry -> Transcript.ToolCall? in
      if case .toolCalls(let calls) = entry { return calls.calls.first }
      return nil
    }.first, "the model called the tool in Qwen's <tool_call> format")
    #expect(call.toolName == "get_weather")
    let violations = JSONSchemaValidator(schema: weather.parameters.jsonSchema).validate(call.arguments.jsonValue)
    #expect(violations.isEmpty, "\(call.arguments.jsonString): \(violations)")
    #expect(weather.calls.withLock { $0 } == 1)
    guard case .response = response.transcriptEntries.last else {
      Issue.record("the turn should end with the model's answer")
      return
    }
    #expect(!response.content.contains("<tool_call>"), "the call's markup is not part of the answer")

    // The conversation so far renders the call and its result in Qwen's format.
    let followUp = try await model.promptText(for: Self.request(session.transcript.entries + [.prompt(.init(text: "Thanks!"))],
                                                                 tools: [weather.definition]))
    #expect(followUp.contains("<tool_call>"))
    #expect(followUp.contains("<tool_response>"))
  }

  @Test("a request renders the same prompt every time (its tools' schemas in one key order), also when requests render side by side")
  func concurrentRenders() async throws {
    _ = try TestModel.requireModel()
    let source = try String(contentsOf: try TestModel.llamaCppTemplate("Qwen-Qwen2.5-7B-Instruct.jinja"), encoding: .utf8)
    let models = [
      SystemLanguageModel(modelPath: TestModel.path, configuration: .init(contextSize: 2048)),
      SystemLanguageModel(modelPath: TestModel.path, configuration: .init(contextSize: 2048, chatTemplate: .jinja(source))),
    ]
    let weather = WeatherTool().definition
    // Distinct requests: each its own text, every third with a tool (Qwen's template then writes
    // its schema into the prompt and builds its grammar and call parser). Made anew for each
    // rendering: a request keeps its rendering in its session state. Before the keys were sorted,
    // 7–8 of the 16 tool requests rendered their schema's keys in another order the second time
    // (a Swift dictionary's order differs between instances), so a conversation with tools missed
    // its cached prompt at every turn.
    @Sendable func request(_ index: Int) -> GenerationRequest {
      Self.request([.instructions(.init(text: "Request \(index): be brief.")), .prompt(.init(text: "Question \(index)?"))],
                   tools: index % 3 == 0 ? [weather] : [])
    }
    let count = 48
    var expected: [String] = []
    for index in 0..<count {
      expected.append(try await models[index % 2].promptText(for: request(index)))
    }
    // Side by side, as llama-server's HTTP threads render (a burst of requests no longer queues
    // behind one lock).
    let concurrent = try await withThrowingTaskGroup(of: (Int, String).self) { group in
      for index in 0..<count {
        group.addTask { (index, try await models[index % 2].promptText(for: request(index))) }
      }
      var texts = [String](repeating: "", count: count)
      for try await (index, text) in group { texts[index] = text }
      return texts
    }
    for index in 0..<count {
      #expect(concurrent[index] == expected[index], "request \(index)")
      #expect(concurrent[index].contains("Question \(index)?"))
    }
    #expect(concurrent[3].contains("get_weather") && concurrent[3].contains("<tools>"), "Qwen's template declared the tool")
  }

  @Test("a conversation with tools in the model's own format reuses its cached prompt at the next turn")
  func toolConversationReusesItsCache() async throws {
    _ = try TestModel.requireModel()
    let source = try String(contentsOf: try TestModel.llamaCppTemplate("Qwen-Qwen2.5-7B-Instruct.jinja"), encoding: .utf8)
    let model = SystemLanguageModel(modelPath: TestModel.path, configuration: .init(contextSize: 2048, chatTemplate: .jinja(source)))
    let session = GenerativeModelSession(model: model, tools: [WeatherTool()], instructions: "You answer questions about the weather.")
    let options = GenerationOptions(sampling: .greedy, maximumResponseTokens: 8, toolChoice: ToolChoice.none)
    var previous = try await session.respond(to: "Say hello.", options: options)
    for prompt in ["Say goodbye.", "Say thanks.", "Say yes."] {
      let next = try await session.respond(to: prompt, options: options)
      // Each prompt starts with the whole previous one (tools, instructions, earlier turns): all of
      // it is in the session's cache. Before the tools' schemas were encoded with sorted keys, their
      // JSON came out in another order at about every other turn, and the cache ended there.
      #expect(next.usage.cachedPromptTokens >= previous.usage.promptTokens,
              "\(prompt): cached \(next.usage.cachedPromptTokens) of \(next.usage.promptTokens); the turn before's prompt had \(previous.usage.promptTokens)")
      previous = next
    }
  }

  @Test("prompt-only requests skip common's analysis of the template where the prompt is the same: every template of llama.cpp's collection, against its full path")
  func promptsRenderDirectly() throws {
    _ = try TestModel.requireModel()
    let weights = try LlamaModelWeights(path: TestModel.path)
    let folder = try TestModel.llamaCppSource().appendingPathComponent("models/templates")
    let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".jinja") }.sorted()
    try #require(names.count > 20, "llama.cpp's template collection is missing at \(folder.path)")
    let first = ChatTemplateRequest(messages: [.init(role: "system", content: "Be brief."), .init(role: "user", content: "Hi!")],
                                    prompt_only: true)
    var second = ChatTemplateRequest(messages: [
      .init(role: "user", content: "Name a colour."), .init(role: "assistant", content: "Blue, or <b>green</b>."),
      .init(role: "user", content: "Another?"),
    ])
    var direct: [String: Bool] = [:]
    for name in names + ["(SmolLM2's own)"] {
      let source = name.hasSuffix(".jinja") ? try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8) : nil
      // A template SmolLM2's vocabulary cannot run (common refuses it) is not this test's subject.
      guard let template = try? weights.makeJinjaTemplate(source, modelName: name), (try? template.render(first)) != nil else { continue }
      guard let decided = template.rendersPromptsDirectly else {
        Issue.record("\(name): not decided by its first prompt-only request")
        continue
      }
      direct[name] = decided
      // Another conversation: through the direct path where it was found to agree, and the full way.
      second.prompt_only = true
      let fast = try template.render(second)
      second.prompt_only = nil
      let full = try template.render(second)
      #expect(fast.prompt == full.prompt, "\(name)")
    }
    // Templates the autoparser reads write their prompt as the direct path does, by construction.
    for name in ["(SmolLM2's own)", "Qwen-Qwen2.5-7B-Instruct.jinja", "Qwen-Qwen3-0.6B.jinja", "meta-llama-Llama-3.1-8B-Instruct.jinja"] {
      #expect(direct[name] == true, "\(name)")
    }
    // A template that refuses the probe conversation (here: any assistant turn) keeps the full
    // path, and the request that found out is answered all the same.
    let picky = try weights.makeJinjaTemplate("""
      {% for message in messages %}{% if message.role == 'assistant' %}{{ raise_exception('no assistant turns') }}{% endif %}\
      {{ message.content }}{% endfor %}
      """, modelName: "picky")
    #expect(try picky.render(first).prompt.contains("Hi!"))
    #expect(picky.rendersPromptsDirectly == false)
    // (2026-11-27: all 71 agree, the templates with handlers of their own among them.)
    #expect(direct.values.filter { $0 }.count >= 40, "\(direct.filter { $0.value }.count) of \(direct.count): \(direct.filter { !$0.value }.keys.sorted())")
  }

  @Test("Gemma 4's template (vocabulary-only GGUF): tools declared in Gemma's format, a Gemma call parsed into a ToolCall")
  func gemmaToolFormat() throws {
    let path = try TestModel.llamaCppSource().appendingPathComponent("models/ggml-vocab-gemma-4.gguf").path
    let weights = try LlamaModelWeights(path: path, vocabularyOnly: true)
    let template = try weights.jinjaTemplate(nil, modelName: "gemma-4-vocab")
    #expect(template.isExplicit)
    #expect(template.supportsToolCalls)

    let tool = WeatherTool().definition
    let request = ChatTemplateRequest(
      messages: [.init(role: "user", content: "Weather in Paris?")], tools: [.init(tool)], tool_choice: "auto")
    let rendering = try template.render(request)
    #expect(rendering.prompt.contains("get_weather"))
    #expect(rendering.prompt.contains("<|turn>"), "Gemma's turn markers")
    #expect(!rendering.prompt.contains("<tools>"), "not Qwen's or HybridAI's declaration")

    // What Gemma 4 generates for a call (its own syntax), read back by the template's parser.
    let guidance = DecodingGuidance.native(rendering)
    #expect(guidance.offersTools)
    var output = GuidedOutput(guidance: guidance)
    var events: [GenerationEvent] = []
    let generated = #"<|tool_call>call:get_weather{city:<|"|>Paris<|"|>}<tool_call|>"#
    for piece in generated.map(String.init) { output.route(piece, to: { events.append($0) }) }
    try output.finish(to: { events.append($0) })
    let calls = events.compactMap { event -> [Transcript.ToolCall]? in
      if case .toolCalls(let calls) = event { return calls }
      return nil
    }
    let call = try #require(calls.first?.first)
    #expect(call.toolName == "get_weather")
    #expect(try call.arguments.value(String.self, forProperty: "city") == "Paris")
    let text = events.compactMap { event -> String? in
      if case .textDelta(let delta) = event { return delta }
      return nil
    }.joined()
    #expect(text.isEmpty, "a call's markup is not streamed as text, got \(text)")
  }

  /// The default system prompt in SmolLM2's template (the text after `<|im_start|>system\n`).
  static func defaultSystemPrompt(in source: String) -> String? {
    guard let start = source.range(of: "<|im_start|>system\n"),
          let end = source.range(of: "<|im_end|>", range: start.upperBound..<source.endIndex) else { return nil }
    return String(source[start.upperBound..<end.lowerBound])
  }
}

/// A tool with one string argument that counts its calls.
private final class WeatherTool: Tool {
  typealias Arguments = GeneratedContent
  let name = "get_weather"
  let description = "The current weather in a city."
  let parameters = GenerationSchema(jsonSchema: [
    "type": "object", "properties": ["city": ["type": "string", "maxLength": 24]], "required": ["city"],
  ])
  let calls = Mutex(0)

  func call(arguments: GeneratedContent, context: ToolContext) async throws -> ToolOutput {
    calls.withLock { $0 += 1 }
    return "Sunny, 21 °C."
  }
}
