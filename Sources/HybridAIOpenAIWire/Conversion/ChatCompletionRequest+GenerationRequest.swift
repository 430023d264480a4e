import Foundation
import HybridAI

// The server's direction: a Chat Completions request becomes a HybridAI request (used by a server
// that answers it with a HybridAI model).

extension ChatCompletionRequest {
  /// The HybridAI request this Chat Completions request stands for.
  ///
  /// - `system` and `developer` messages become one instructions entry, first.
  /// - `user` messages become prompts: their text and, with `media`, their images (`image_url` with a
  ///   `data:` URL) and sounds (`input_audio`) stored there as attachments in their places.
  /// - `assistant` messages become responses; their `tool_calls` a tool-calls entry (after a
  ///   response with the text, when there is any), keeping the calls' ids.
  /// - `tool` messages become tool outputs answering the call with their `tool_call_id`.
  /// - A conversation may end with an assistant message (the model continues its text, as
  ///   llama-server does) or hold system messages alone (the model answers them).
  /// - `temperature`, `top_p`, `seed`, `max_completion_tokens` (or `max_tokens`),
  ///   `frequency_penalty`, `presence_penalty` and `stop` become ``GenerationOptions``: temperature 0 is greedy; `top_p` or a `seed` samples
  ///   (nucleus, repeatable with the seed).
  /// - `tools`, `tool_choice` and `response_format` become tools, a tool choice and a response
  ///   format (`json_object`: any JSON object; `json_schema`: its schema).
  ///
  /// - Throws: ``OpenAIConversionError``.
  public func generationRequest(media: (any ArtifactStore)? = nil) throws(OpenAIConversionError) -> GenerationRequest {
    let options = try generationOptions()
    let tools = try toolDefinitions()
    if case .required(let names?)? = options.toolChoice {
      for name in names where !tools.contains(where: { $0.name == name }) {
        throw .invalidOption(param: "tool_choice", "function \(name) is not among the declared tools")
      }
    }
    let transcript = try transcript(options: options, media: media)
    switch transcript.last {
    case .prompt?, .toolOutput?, .response?, .instructions?: break
    case .toolCalls?:
      throw .invalidMessage("the last message holds tool calls: add a tool message with each call's result")
    case nil: throw .invalidMessage("messages is empty: give at least one message")
    }
    return GenerationRequest(transcript: transcript, options: options, tools: tools, responseFormat: hybridResponseFormat(),
                             artifactStore: media)
  }

  /// Whether a user message holds an image, a sound or a file.
  public var holdsMedia: Bool {
    messages.contains { message in
      guard message.role == "user", case .parts(let parts)? = message.content else { return false }
      return parts.contains { $0.type != "text" }
    }
  }

  /// The most choices (`n`) one request may ask for.
  public static let maximumChoices = 16

  /// How many choices the request asks for (`n`, 1 when absent).
  public var choiceCount: Int { n ?? 1 }

  /// The options of this request.
  public func generationOptions() throws(OpenAIConversionError) -> GenerationOptions {
    if let n, !(1...Self.maximumChoices).contains(n) {
      throw .invalidOption(param: "n", "must be between 1 and \(Self.maximumChoices) (got \(n))")
    }
    var options = GenerationOptions()
    if let topLogprobs {
      guard logprobs == true else { throw .invalidOption(param: "top_logprobs", "logprobs must be true when top_logprobs is set") }
      guard (0...TokenLogProbability.maximumAlternatives).contains(topLogprobs) else {
        throw .invalidOption(param: "top_logprobs", "must be between 0 and \(TokenLogProbability.maximumAlternatives)")
      }
    }
    if logprobs == true { options.logProbabilities = topLogprobs ?? 0 }
    if let temperature {
      guard (0...2).contains(temperature) else { throw .invalidOption(param: "temperature", "must be between 0 and 2") }
      options.temperature = temperature
    }
    if let topP, !(0...1).contains(topP) { throw .invalidOption(param: "top_p", "must be between 0 and 1") }
    let seed = seed.map { UInt64(bitPattern: $0) }
    if temperature == 0 {
      options.sampling = .greedy
    } else if let topP {
      options.sampling = .random(probabilityThreshold: topP, seed: seed)
    } else if let seed {
      options.sampling = .random(probabilityThreshold: 1, seed: seed)
    }
    if let limit = maxCompletionTokens ?? maxTokens {
      guard limit > 0 else { throw .invalidOption(param: "max_completion_tokens", "must be positive") }
      options.maximumResponseTokens = limit
    }
    for (param, value) in [("frequency_penalty", frequencyPenalty), ("presence_penalty", presencePenalty)] {
      if let value, !(-2...2).contains(value) { throw .invalidOption(param: param, "must be between -2 and 2") }
    }
    options.frequencyPenalty = frequencyPenalty
    options.presencePenalty = presencePenalty
    options.stopSequences = stop?.sequences.filter { !$0.isEmpty } ?? []
    switch toolChoice {
    case nil: break
    case .none?: options.toolChoice = ToolChoice.none
    case .auto?: options.toolChoice = .automatic
    case .required?: options.toolChoice = .required(tools: nil)
    case .function(let name)?: options.toolChoice = .required(tools: [name])
    }
    options.parallelToolCalls = parallelToolCalls
    return options
  }

  /// The declared functions as HybridAI tools (no parameters: an empty object).
  public func toolDefinitions() throws(OpenAIConversionError) -> [ToolDefinition] {
    var definitions: [ToolDefinition] = []
    for tool in tools ?? [] {
      guard tool.type == "function" else { throw .invalidOption(param: "tools", "tool type \(tool.type) is not supported") }
      let function = tool.function
      guard !definitions.contains(where: { $0.name == function.name }) else {
        throw .invalidOption(param: "tools", "function \(function.name) is declared twice")
      }
      let parameters: JSONValue
      switch function.parameters {
      case nil: parameters = ["type": "object", "properties": .object([:]), "additionalProperties": false]
      case .object?: parameters = function.parameters!
      case _?: throw .invalidOption(param: "tools", "the parameters of \(function.name) must be a JSON Schema object")
      }
      definitions.append(ToolDefinition(name: function.name, description: function.description ?? "",
                                        parameters: GenerationSchema(jsonSchema: parameters)))
    }
    return definitions
  }

  /// The response format asked for, or `nil` for free text.
  public func hybridResponseFormat() -> ResponseFormat? {
    switch responseFormat {
    case nil, .text?: nil
    case .jsonObject?: ResponseFormat(schema: GenerationSchema(jsonSchema: ["type": "object"]))
    case .jsonSchema(let name, let schema, _)?:
      ResponseFormat(name: name, schema: GenerationSchema(jsonSchema: schema ?? .object([:])))
    }
  }

  /// The conversation as a transcript.
  private func transcript(options: GenerationOptions, media: (any ArtifactStore)?) throws(OpenAIConversionError) -> Transcript {
    var transcript = Transcript()
    var instructions: [String] = []
    var callNames: [String: String] = [:]   // id → function name, for tool messages
    for (index, message) in messages.enumerated() {
      switch message.role {
      case "system", "developer":
        instructions.append(try Self.text(of: message, at: index))
      case "user":
        if let media, case .parts(let parts)? = message.content, parts.contains(where: { $0.type != "text" }) {
          transcript.append(.prompt(Transcript.Prompt(segments: try Self.segments(of: parts, at: index, media: media), options: options)))
        } else {
          transcript.append(.prompt(Transcript.Prompt(text: try Self.text(of: message, at: index), options: options)))
        }
      case "assistant":
        let text = message.content == nil ? "" : try Self.text(of: message, at: index)
        guard let calls = message.toolCalls, !calls.isEmpty else {
          transcript.append(.response(Transcript.Response(text: text)))
          continue
        }
        if !text.isEmpty { transcript.append(.response(Transcript.Response(text: text))) }
        var toolCalls: [Transcript.ToolCall] = []
        for call in calls {
          guard call.type == "function" else { throw .invalidMessage("messages[\(index)]: tool call type \(call.type)") }
          let arguments: GeneratedContent
          do {
            arguments = try GeneratedContent(json: call.function.arguments.isEmpty ? "{}" : call.function.arguments)
          } catch {
            throw .invalidToolArguments("messages[\(index)]: the arguments of \(call.function.name) are not JSON")
          }
          guard case .structure = arguments.kind else {
            throw .invalidToolArguments("messages[\(index)]: the arguments of \(call.function.name) are not a JSON object")
          }
          callNames[call.id] = call.function.name
          toolCalls.append(Transcript.ToolCall(id: call.id, toolName: call.function.name, arguments: arguments))
        }
        transcript.append(.toolCalls(Transcript.ToolCalls(calls: toolCalls)))
      case "tool":
        guard let id = message.toolCallID, let name = callNames[id] else {
          throw .invalidMessage("messages[\(index)]: a tool message must answer a preceding assistant tool call "
            + "(tool_call_id \(message.toolCallID ?? "missing"))")
        }
        transcript.append(.toolOutput(Transcript.ToolOutput(callID: id, toolName: name,
                                                            text: try Self.text(of: message, at: index))))
      case let role:
        throw .invalidMessage("messages[\(index)]: role \(role) is not system, developer, user, assistant or tool")
      }
    }
    if !instructions.isEmpty {
      var withInstructions = Transcript()
      withInstructions.append(.instructions(Transcript.Instructions(text: instructions.joined(separator: "\n\n"))))
      for entry in transcript { withInstructions.append(entry) }
      transcript = withInstructions
    }
    return transcript
  }

  /// A user message's parts in order: text, and its images and sounds stored in `media`.
  private static func segments(of parts: [ChatMessage.Part], at index: Int,
                               media: any ArtifactStore) throws(OpenAIConversionError) -> [Transcript.Segment] {
    var segments: [Transcript.Segment] = []
    for part in parts {
      switch part.type {
      case "text":
        guard let value = part.text else { throw .invalidMessage("messages[\(index)]: a text part without text") }
        segments.append(.text(Transcript.TextSegment(content: value)))
      case "image_url", "input_audio":
        let bytes = try mediaBytes(of: part, at: index)
        do {
          let reference = try Attachment(data: bytes, mimeType: part.mimeType).store(in: media)
          segments.append(.attachment(Transcript.AttachmentSegment(reference: reference)))
        } catch {
          throw .invalidMessage("messages[\(index)]: \(error)")
        }
      default:
        throw .unsupportedInput(part.mimeType ?? part.type)
      }
    }
    return segments
  }

  /// The bytes of an `image_url` part's `data:` URL or an `input_audio` part's base64 data.
  private static func mediaBytes(of part: ChatMessage.Part, at index: Int) throws(OpenAIConversionError) -> Data {
    if let audio = part.inputAudio {
      guard let bytes = Data(base64Encoded: audio.data) else { throw .invalidMessage("messages[\(index)]: input_audio data is not base64") }
      return bytes
    }
    guard let url = part.imageURL?.url else { throw .invalidMessage("messages[\(index)]: \(part.type) without its data") }
    guard url.hasPrefix("data:"), let comma = url.firstIndex(of: ","), url[..<comma].hasSuffix(";base64") else {
      throw .unsupportedInput("image_url with a remote URL (this server does not fetch URLs: send the image as a data: URL)")
    }
    guard let bytes = Data(base64Encoded: String(url[url.index(after: comma)...])) else {
      throw .invalidMessage("messages[\(index)]: the image's data: URL is not base64")
    }
    return bytes
  }

  /// A message's text: its string content, or its text parts joined.
  private static func text(of message: ChatMessage, at index: Int) throws(OpenAIConversionError) -> String {
    switch message.content {
    case nil: throw .invalidMessage("messages[\(index)]: content is missing")
    case .text(let text)?: return text
    case .parts(let parts)?:
      var text = ""
      for part in parts {
        guard part.type == "text", let value = part.text else { throw .unsupportedInput(part.mimeType ?? part.type) }
        text += value
      }
      return text
    }
  }
}
