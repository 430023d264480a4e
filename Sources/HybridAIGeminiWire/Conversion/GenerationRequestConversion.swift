import Foundation
import HybridAI

// The server's direction of the request conversions: a Gemini request becomes a HybridAI
// transcript, options, tools and response format (used by a Gemini-compatible server that answers
// with an on-device model). The client's direction is in TranscriptConversion.swift.

extension GenerateContentRequest {
  /// The whole HybridAI request this Gemini request stands for: ``transcriptAndOptions()``,
  /// ``toolDefinitions()`` and ``responseFormat()``.
  ///
  /// With `media`, the images and sounds of user turns (`inlineData`) are stored there and become
  /// attachments in their places (for a model that reads them itself); without it they are refused.
  ///
  /// - Throws: ``GeminiConversionError``.
  public func generationRequest(media: (any ArtifactStore)? = nil) throws -> GenerationRequest {
    let (transcript, options) = try transcriptAndOptions(media: media)
    return GenerationRequest(transcript: transcript, options: options, tools: try toolDefinitions(),
                             responseFormat: try responseFormat(), artifactStore: media)
  }

  /// Whether a user turn holds `inlineData` other than plain text (an image, a sound, a document).
  public var holdsMedia: Bool {
    contents.contains { content in
      (content.role ?? Gemini.Content.userRole) == Gemini.Content.userRole && content.parts.contains { part in
        if case .inlineData(let blob)? = part.data { MediaType.named(blob.mimeType)?.modality != .text } else { false }
      }
    }
  }

  /// The transcript and options of this request, for a server that answers it with a HybridAI
  /// model.
  ///
  /// - `systemInstruction` becomes an instructions entry.
  /// - `user` contents (and contents without role) become prompts; their `functionResponse`
  ///   parts become tool outputs (see ``HybridAI/Transcript/ToolOutput/init(gemini:callID:)``)
  ///   answering the call with the same `id`, or else the earliest unanswered call of the same
  ///   name.
  /// - `model` contents become responses whose text is the non-thought text and whose
  ///   ``HybridAI/ProviderContent`` is the content as sent (provider `gemini`); a content with
  ///   `functionCall` parts becomes a tool-calls entry instead (after a response with its text,
  ///   if it has any), its calls keeping Gemini's ids (or getting new ones).
  /// - `generationConfig` becomes generic options with the configuration attached (see
  ///   ``HybridAI/GenerationOptions/init(geminiConfig:)``); `toolConfig.functionCallingConfig`
  ///   becomes ``HybridAI/GenerationOptions/toolChoice`` (see ``HybridAI/ToolChoice/init(gemini:)``).
  ///
  /// - `inlineData` of plain text (`text/plain`, UTF-8) is read as the turn's text; other
  ///   `inlineData` of a user turn becomes an attachment stored in `media`, when given.
  ///
  /// - Throws: ``GeminiConversionError/unsupportedInput(_:)`` for parts other than text, plain-text
  ///   `inlineData` and function calls and responses (other `inlineData`, `fileData`, code) or function parts in the
  ///   wrong turn, ``GeminiConversionError/unsupportedRole(_:)`` for roles other than `user` and
  ///   `model`, ``GeminiConversionError/invalidOption(_:)``.
  public func transcriptAndOptions(media: (any ArtifactStore)? = nil) throws -> (transcript: Transcript, options: GenerationOptions) {
    var transcript = Transcript()
    if let systemInstruction {
      let parts = try Self.split(systemInstruction)
      guard parts.calls.isEmpty, parts.responses.isEmpty else {
        throw GeminiConversionError.unsupportedInput("function parts in systemInstruction")
      }
      if !parts.text.isEmpty { transcript.append(.instructions(Transcript.Instructions(text: parts.text))) }
    }
    var options = try generationConfig.map(GenerationOptions.init(geminiConfig:)) ?? GenerationOptions()
    if let choice = try ToolChoice(gemini: toolConfig?.functionCallingConfig) { options.toolChoice = choice }
    var schemas: [String: GenerationSchema] = [:]
    for declaration in tools?.flatMap({ $0.functionDeclarations ?? [] }) ?? [] {
      schemas[declaration.name] = try? ToolDefinition(gemini: declaration).parameters
    }

    var unanswered: [Transcript.ToolCall] = []
    for content in contents {
      let role = content.role ?? Gemini.Content.userRole
      let parts = try Self.split(content, media: role == Gemini.Content.userRole ? media : nil)
      switch role {
      case Gemini.Content.userRole:
        guard parts.calls.isEmpty else { throw GeminiConversionError.unsupportedInput("functionCall in a user turn") }
        for response in parts.responses {
          let callID: String
          if let id = response.id, !id.isEmpty {
            callID = id
            unanswered.removeAll { $0.id == id }
          } else if let index = unanswered.firstIndex(where: { $0.toolName == response.name }) {
            callID = unanswered.remove(at: index).id
          } else {
            callID = "call_" + UUID().uuidString.prefix(8).lowercased()
          }
          transcript.append(.toolOutput(Transcript.ToolOutput(gemini: response, callID: callID)))
        }
        if parts.segments.contains(where: { if case .attachment = $0 { true } else { false } }) {
          transcript.append(.prompt(Transcript.Prompt(segments: parts.segments, options: options)))
        } else if parts.responses.isEmpty || !parts.text.isEmpty {
          transcript.append(.prompt(Transcript.Prompt(text: parts.text, options: options)))
        }
      case Gemini.Content.modelRole:
        guard parts.responses.isEmpty else {
          throw GeminiConversionError.unsupportedInput("functionResponse in a model turn")
        }
        let provided = try? ProviderContent(provider: Gemini.providerName, content: JSONValue(encoding: content))
        if parts.calls.isEmpty {
          transcript.append(.response(Transcript.Response(text: parts.text, providerContent: provided)))
          continue
        }
        if !parts.text.isEmpty { transcript.append(.response(Transcript.Response(text: parts.text))) }
        let calls = parts.calls.map { Transcript.ToolCall(gemini: $0, parameters: schemas[$0.name]) }
        unanswered = calls
        transcript.append(.toolCalls(Transcript.ToolCalls(calls: calls, providerContent: provided)))
      case let role:
        throw GeminiConversionError.unsupportedRole(role)
      }
    }
    return (transcript, options)
  }

  /// The tools of this request's function declarations (see
  /// ``HybridAI/ToolDefinition/init(gemini:)``).
  ///
  /// - Throws: ``GeminiConversionError/unsupportedInput(_:)`` for built-in tools (`googleSearch`,
  ///   `codeExecution`, …), ``GeminiConversionError/invalidSchema(_:)`` for a schema that does not
  ///   convert, ``GeminiConversionError/invalidOption(_:)`` for a name declared twice.
  public func toolDefinitions() throws -> [ToolDefinition] {
    var definitions: [ToolDefinition] = []
    for tool in tools ?? [] {
      if let builtIn = tool.otherTools.keys.sorted().first {
        throw GeminiConversionError.unsupportedInput("tool \(builtIn)")
      }
      for declaration in tool.functionDeclarations ?? [] {
        guard !definitions.contains(where: { $0.name == declaration.name }) else {
          throw GeminiConversionError.invalidOption("function \(declaration.name) is declared twice")
        }
        definitions.append(try ToolDefinition(gemini: declaration))
      }
    }
    return definitions
  }

  /// The response format `generationConfig` asks for, or `nil` for free text.
  ///
  /// `responseMimeType` `application/json` with `responseJsonSchema` (as it is) or
  /// `responseSchema` (converted, see ``HybridAI/GenerationSchema/init(geminiSchema:)``), or with
  /// no schema (any JSON: the empty schema). A schema without a MIME type is taken as JSON too.
  ///
  /// - Throws: ``GeminiConversionError/invalidSchema(_:)``; ``GeminiConversionError/invalidOption(_:)``
  ///   for a schema with `text/plain`, or another MIME type (`text/x.enum`, …).
  public func responseFormat() throws -> ResponseFormat? {
    guard let config = generationConfig else { return nil }
    var schema: GenerationSchema?
    if let json = config.responseJsonSchema {
      switch json {
      case .object, .bool: schema = GenerationSchema(jsonSchema: json)
      default: throw GeminiConversionError.invalidSchema("responseJsonSchema must be an object")
      }
    } else if let openAPI = config.responseSchema {
      do {
        schema = try GenerationSchema(geminiSchema: openAPI)
      } catch GeminiConversionError.invalidSchema(let detail) {
        throw GeminiConversionError.invalidSchema("responseSchema: \(detail)")
      }
    }
    switch config.responseMimeType?.lowercased() {
    case "application/json"?:
      break
    case nil:
      guard schema != nil else { return nil }
    case "text/plain"?:
      guard schema == nil else {
        throw GeminiConversionError.invalidOption("a response schema needs responseMimeType application/json")
      }
      return nil
    case let other?:
      throw GeminiConversionError.invalidOption("responseMimeType \(other) is not supported (use application/json)")
    }
    let resolved = schema ?? GenerationSchema(jsonSchema: .object([:]))
    var name: String?
    if case .string(let title)? = resolved.jsonSchema["title"] { name = title }
    return ResponseFormat(name: name, schema: resolved)
  }

  /// A content's joined non-thought text, its text and stored media in order (with `media`),
  /// function calls and function responses; throws for other parts.
  private static func split(_ content: Gemini.Content, media: (any ArtifactStore)? = nil) throws
    -> (text: String, segments: [Transcript.Segment], calls: [Gemini.FunctionCall], responses: [Gemini.FunctionResponse]) {
    var text = ""
    var segments: [Transcript.Segment] = []
    var calls: [Gemini.FunctionCall] = []
    var responses: [Gemini.FunctionResponse] = []
    func appendText(_ value: String) {
      text += value
      if case .text(var last)? = segments.last {
        last.content += value
        segments[segments.count - 1] = .text(last)
      } else {
        segments.append(.text(Transcript.TextSegment(content: value)))
      }
    }
    for part in content.parts {
      switch part.data {
      case .text(let value):
        if !part.isThought { appendText(value) }
      case nil:
        continue
      case .functionCall(let call):
        calls.append(call)
      case .functionResponse(let response):
        responses.append(response)
      case .inlineData(let blob) where MediaType.named(blob.mimeType)?.modality == .text:
        // Plain text sent as a file (Gemini reads it as text): its contents, after the text so far.
        guard let bytes = blob.bytes, let contents = String(validating: bytes, as: UTF8.self) else {
          throw GeminiConversionError.unsupportedInput("inlineData (\(blob.mimeType)) that is not UTF-8 text in base64")
        }
        appendText((text.isEmpty || text.hasSuffix("\n") ? "" : "\n") + contents + (contents.hasSuffix("\n") ? "" : "\n"))
      case .inlineData(let blob):
        guard let media else { throw GeminiConversionError.unsupportedInput("inlineData (\(blob.mimeType))") }
        guard let bytes = blob.bytes else { throw GeminiConversionError.invalidOption("inlineData (\(blob.mimeType)) is not base64") }
        do {
          segments.append(.attachment(Transcript.AttachmentSegment(
            reference: try Attachment(data: bytes, mimeType: blob.mimeType).store(in: media))))
        } catch {
          throw GeminiConversionError.invalidOption("inlineData (\(blob.mimeType)): \(error)")
        }
      case .fileData(let file):
        throw GeminiConversionError.unsupportedInput("fileData" + (file.mimeType.map { " (\($0))" } ?? ""))
      case let other?:
        throw GeminiConversionError.unsupportedInput(other.kind)
      }
    }
    return (text, segments, calls, responses)
  }
}
