import CLlamaChatTemplates
import Foundation

/// A model's Jinja chat template, run by llama.cpp's `common` library (its Jinja engine and its
/// knowledge of each model family's tool-call format).
///
/// Made once per weights and template (``LlamaModelWeights/jinjaTemplate(_:)``); renders are
/// not serialised: each takes about a millisecond, and common's templates are read-only once made
/// (llama-server renders from all its HTTP threads at once on one set), so a burst of requests
/// renders on all cores.
final class JinjaChatTemplate: @unchecked Sendable {
  private let handle: OpaquePointer
  /// Whether the template is the GGUF's own or the configured one; `false` when the model has
  /// none and ChatML stands in (see ``ChatTemplateDescription/Origin/fallback``).
  let isExplicit: Bool
  /// The Jinja source in use.
  let source: String
  /// Whether the template declares tools and renders tool calls and tool results itself.
  let supportsToolCalls: Bool

  /// The template of `model` (`override` nil or empty: the GGUF's own). Throws
  /// ``OnDeviceModelError/invalidChatTemplate(model:reason:)`` with Jinja's message.
  init(model: OpaquePointer, override: String?, modelName: String) throws(OnDeviceModelError) {
    LlamaRuntime.ensureInitialised()
    var error: UnsafeMutablePointer<CChar>?
    guard let handle = hybridai_chat_templates_init(model, override, &error) else {
      throw .invalidChatTemplate(model: modelName, reason: Self.take(error) ?? "common could not load it")
    }
    self.handle = handle
    isExplicit = hybridai_chat_templates_is_explicit(handle)
    source = Self.take(hybridai_chat_templates_source(handle)) ?? ""
    let capabilities = Self.take(hybridai_chat_templates_capabilities(handle))
      .flatMap { try? JSONDecoder().decode([String: Bool].self, from: Data($0.utf8)) } ?? [:]
    supportsToolCalls = capabilities["supports_tool_calls"] == true && capabilities["supports_tools"] == true
  }

  deinit { hybridai_chat_templates_free(handle) }

  /// Whether prompt-only requests (``ChatTemplateRequest/prompt_only``) render through common's
  /// direct path, which skips its analysis of the template on every call (~0.65 ms of a ~1 ms
  /// render on the 2-core VM): `true` when the first one's prompt and a probe conversation's came
  /// out the same both ways, `false` for a template whose handler writes prompts its own way, `nil`
  /// before the first.
  var rendersPromptsDirectly: Bool? {
    switch hybridai_chat_templates_prompts_render_directly(handle) {
    case 1: true
    case 0: false
    default: nil
    }
  }

  /// Renders `request` (OpenAI Chat Completions shape, see ``ChatTemplateRequest``). Throws
  /// ``OnDeviceModelError/chatTemplateFailed(_:)`` with the template's error.
  func render(_ request: ChatTemplateRequest) throws(OnDeviceModelError) -> ChatRendering {
    let json: String
    // Sorted keys: the tools' JSON schemas reach the prompt in the order they arrive here, and a
    // Swift dictionary's order differs from one instance to the next — unsorted, the same tools
    // rendered differently from request to request, and a conversation's next turn missed its
    // cached prompt from the tool declarations on.
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    do { json = String(decoding: try encoder.encode(request), as: UTF8.self) } catch {
      throw .chatTemplateFailed("the request could not be encoded: \(error)")
    }
    var error: UnsafeMutablePointer<CChar>?
    guard let rendering = hybridai_chat_render(handle, json, &error) else {
      throw .chatTemplateFailed(Self.take(error) ?? "the template could not be rendered")
    }
    return try ChatRendering(handle: rendering)
  }

  /// The Swift string of a string the C API allocated, which it then frees.
  static func take(_ pointer: UnsafeMutablePointer<CChar>?) -> String? {
    guard let pointer else { return nil }
    defer { hybridai_chat_string_free(pointer) }
    return String(cString: pointer)
  }
}
