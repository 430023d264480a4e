import CLlamaChatTemplates
import Foundation

/// One request rendered by a ``JinjaChatTemplate``: the prompt text, the grammar its tool calls
/// follow (in the model's own format), and the parser that reads an answer back into text and
/// tool calls.
final class ChatRendering: @unchecked Sendable, Hashable {
  /// What common reports besides the parser that HybridAI uses (see `hybridai_chat_rendering_json`;
  /// `additional_stops` and `preserved_tokens` are not used yet).
  struct Details: Decodable {
    struct Trigger: Decodable {
      var type: String
      var value: String
      var token: Int32
    }
    var prompt: String
    var format: String
    var grammar: String
    var grammar_lazy: Bool
    var grammar_triggers: [Trigger]
    var generation_prompt: String
  }

  /// An assistant message as common's parser reads it (OpenAI shape).
  struct ParsedMessage: Decodable, Equatable {
    struct Call: Decodable, Equatable {
      struct Function: Decodable, Equatable {
        var name: String
        var arguments: String
      }
      var function: Function
    }
    /// The answer without tool-call markup and reasoning.
    var content: String?
    var tool_calls: [Call]?
  }

  private let handle: OpaquePointer
  let details: Details

  init(handle: OpaquePointer) throws(OnDeviceModelError) {
    self.handle = handle
    guard let json = JinjaChatTemplate.take(hybridai_chat_rendering_json(handle)),
          let details = try? JSONDecoder().decode(Details.self, from: Data(json.utf8)) else {
      hybridai_chat_rendering_free(handle)
      throw .chatTemplateFailed("common returned no readable rendering")
    }
    self.details = details
  }

  deinit { hybridai_chat_rendering_free(handle) }

  var prompt: String { details.prompt }

  /// Reads generated text (`isPartial` while it is still being generated). Throws
  /// ``OnDeviceModelError/invalidToolCall(_:reason:)`` when a finished answer cannot be read.
  func parse(_ text: String, isPartial: Bool) throws(OnDeviceModelError) -> ParsedMessage {
    var error: UnsafeMutablePointer<CChar>?
    guard let json = JinjaChatTemplate.take(hybridai_chat_parse(handle, text, isPartial, &error)) else {
      throw .invalidToolCall(text, reason: JinjaChatTemplate.take(error) ?? "the model's format could not be read")
    }
    do { return try JSONDecoder().decode(ParsedMessage.self, from: Data(json.utf8)) } catch {
      throw .invalidToolCall(text, reason: "common's parse is not an assistant message: \(error)")
    }
  }

  static func == (lhs: ChatRendering, rhs: ChatRendering) -> Bool { lhs === rhs }
  func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}
