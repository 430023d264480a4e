import CLlama
import HybridAI

/// The chat template a request runs with: the model's (or configured) Jinja template, or one of
/// llama.cpp's built-in ones.
enum ResolvedChatTemplate {
  case jinja(JinjaChatTemplate, origin: ChatTemplateDescription.Origin)
  case builtIn(ChatTemplate)

  /// The template for `configured` (`nil`: the GGUF's own) on these weights.
  init(configured: ChatTemplate?, weights: LlamaModelWeights, modelName: String) throws(OnDeviceModelError) {
    switch configured?.kind {
    case .builtIn?:
      self = .builtIn(configured!)
    case .jinja(let source)?:
      self = .jinja(try weights.jinjaTemplate(source, modelName: modelName), origin: .configured)
    case nil:
      let template = try weights.jinjaTemplate(nil, modelName: modelName)
      self = .jinja(template, origin: template.isExplicit ? .model : .fallback)
    }
  }

  var description: ChatTemplateDescription {
    switch self {
    case .jinja(let template, let origin):
      ChatTemplateDescription(origin: origin, source: template.source, usesNativeToolFormat: template.supportsToolCalls)
    case .builtIn(let template):
      ChatTemplateDescription(origin: .configured, source: template.source, usesNativeToolFormat: false)
    }
  }

  /// The prompt tokens of `request` and, when its tools are in the model's own format, the
  /// rendering that reads the answer's calls back.
  ///
  /// A transcript that ends with a response is an answer the caller began (OpenAI's assistant
  /// prefill): the model continues it. The conversation before it is rendered as for a new answer
  /// and the begun text follows the generation prompt, as llama-server does.
  ///
  /// With a `projector`, the attachments it reads are evaluated as media in their places.
  func render(_ request: GenerationRequest, weights: LlamaModelWeights,
              projector: MultimodalProjector? = nil) throws -> RenderedPrompt {
    let media = projector.map(MediaRendering.init(projector:))
    var text: String
    let rendering: ChatRendering?
    if case .response(let begun)? = request.transcript.last {
      var before = request
      before.transcript = Transcript(entries: Array(request.transcript.dropLast()))
      (text, rendering) = try promptText(before, media: media)
      text += begun.segments.text
    } else {
      (text, rendering) = try promptText(request, media: media)
    }
    guard let projector, let media, case let attachments = media.attachments(in: request.transcript), !attachments.isEmpty else {
      return RenderedPrompt(prompt: MultimodalPrompt(tokens: try weights.tokenize(text)), nativeToolCalls: rendering)
    }
    let inputs = try attachments.map { attachment in
      MediaInput(name: attachment.reference.name, mimeType: attachment.mimeType, bytes: try request.contents(of: attachment))
    }
    return RenderedPrompt(prompt: try projector.tokenize(text, media: inputs), nativeToolCalls: rendering)
  }

  /// The prompt's text, ending with the generation prompt, and the native tool-call rendering.
  private func promptText(_ request: GenerationRequest, media: MediaRendering?) throws(OnDeviceModelError) -> (String, ChatRendering?) {
    switch self {
    case .builtIn(let template):
      let messages = TranscriptRendering.messages(for: request, style: .documented, media: media)
      return (try template.renderBuiltIn(messages), nil)
    case .jinja(let template, _):
      let native = template.supportsToolCalls && request.responseFormat == nil
        && (!request.tools.isEmpty || request.transcript.contains { if case .toolCalls = $0 { true } else { false } })
      var chat = ChatTemplateRequest(messages: TranscriptRendering.messages(for: request, style: native ? .native : .documented,
                                                                            media: media))
      if native {
        (chat.tools, chat.tool_choice) = Self.nativeTools(for: request)
        chat.parallel_tool_calls = request.options.parallelToolCalls
      } else {
        chat.prompt_only = true
      }
      let rendering = try template.render(chat)
      return (rendering.prompt, native ? rendering : nil)
    }
  }

  /// Texts that end the model's turn but are no single end-of-generation token of these weights,
  /// so generation must stop at them as text: ChatML's `<|im_end|>` and `<|im_start|>` when the
  /// ChatML fallback (a GGUF without a template of its own) runs a model whose vocabulary lacks
  /// them — without, a base model such as Gemma 3 270M writes on past its turn into invented ones.
  func turnEndTexts(weights: LlamaModelWeights) -> [String] {
    guard case .jinja(_, .fallback) = self else { return [] }
    let markers = ["<|im_end|>", "<|im_start|>"]
    let ending = (try? weights.tokenize(markers[0], addSpecial: false, parseSpecial: true)) ?? []
    if ending.count == 1, weights.isEndOfGeneration(ending[0]) { return [] }
    return markers
  }

  /// The tools a native template declares and its `tool_choice`, from the request's tool choice.
  private static func nativeTools(for request: GenerationRequest) -> ([ChatTemplateRequest.Tool]?, String?) {
    guard !request.tools.isEmpty else { return (nil, nil) }
    switch request.options.toolChoice ?? .automatic {
    case .automatic: return (request.tools.map(ChatTemplateRequest.Tool.init), "auto")
    case .none: return (request.tools.map(ChatTemplateRequest.Tool.init), "none")
    case .required(let names):
      let offered = request.tools.filter { names?.contains($0.name) ?? true }
      return (offered.map(ChatTemplateRequest.Tool.init), "required")
    }
  }
}

/// A request's prompt as tokens, and the rendering that parses tool calls in the model's own
/// format (`nil`: HybridAI's documented format, or no tools).
struct RenderedPrompt: Sendable {
  let prompt: MultimodalPrompt
  let nativeToolCalls: ChatRendering?
}
